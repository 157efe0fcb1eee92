import { isIP, SocketAddress } from 'node:net';

/**
 * The spelling of an IP the stratum server uses for bans: IPv6 compressed and lower-case
 * ("2001:DB8:0::1" -> "2001:db8::1"), IPv4-mapped IPv6 as plain IPv4 ("::ffff:1.2.3.4" ->
 * "1.2.3.4", as a dual-stack listener reports it). Returns null for anything that is not an IP
 * (zone ids such as "fe80::1%eth0" included: a ban never matches them).
 */
export function canonicalIp(text: string): string | null {
  const family = isIP(text);
  if (family === 0 || text.includes('%')) return null;
  const address = new SocketAddress({ address: text, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  return address;
}
