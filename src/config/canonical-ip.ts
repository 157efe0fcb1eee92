import { isIP, SocketAddress } from 'node:net';

/**
 * The spelling of an IP the stratum server uses for bans: IPv6 compressed and lower-case
 * ("2001:DB8:0::1" -> "2001:db8::1"), IPv4-mapped IPv6 as plain IPv4 ("::ffff:1.2.3.4" ->
 * "1.2.3.4", as a dual-stack listener reports it). An IPv6 network as bans list it
 * ("2001:db8:1:2::/64") is accepted too. Returns null for anything else (zone ids such as
 * "fe80::1%eth0" included: a ban never matches them).
 */
export function canonicalIp(text: string): string | null {
  const slash = text.indexOf('/');
  if (slash !== -1) {
    const bits = text.slice(slash + 1);
    const address = canonicalIp(text.slice(0, slash));
    if (address === null || isIP(address) !== 6 || !/^\d{1,3}$/.test(bits) || Number(bits) > 128) return null;
    return `${address}/${Number(bits)}`;
  }
  const family = isIP(text);
  if (family === 0 || text.includes('%')) return null;
  const address = new SocketAddress({ address: text, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  return address;
}
