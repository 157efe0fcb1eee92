import { isIP, SocketAddress } from 'node:net';

/**
 * An IPv4-mapped IPv6 address ("::ffff:1.2.3.4", what a server listening on "::" reports for an
 * IPv4 client) as its IPv4 address; any other address as it is.
 */
export function unmappedIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** The eight 16-bit groups of an IPv6 address (valid per net.isIP, no zone id). */
export function ipv6Groups(address: string): number[] {
  let text = address;
  // A dotted IPv4 tail ("::ffff:1.2.3.4", "64:ff9b::1.2.3.4") is the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const [head = '', rest] = text.split('::');
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The key that connection caps and bans count a peer by: an IPv4 address itself, an IPv6 address
 * by its network of `ipv6PrefixLength` bits, e.g. "2001:db8:1:2::/64" (one subscriber usually
 * holds a whole /64: counted per address, it could open connections and dodge bans without end).
 * 128 keeps each IPv6 address apart. `ip` is a canonical IP (see canonicalIp) or a key made
 * here ("addr/len"): the result is the same for every address of the network, and a key maps to
 * itself.
 */
export function peerKey(ip: string, ipv6PrefixLength: number): string {
  if (!ip.includes(':')) return ip; // IPv4 (every submit asks: keep it cheap)
  const slash = ip.indexOf('/');
  const address = slash === -1 ? ip : ip.slice(0, slash);
  // A key of a coarser network (an IPv6 aggregate ban, "2001:db8:1::/48") stays itself; with 128
  // (each address on its own) a network key still maps to its address, as before.
  if (slash !== -1 && ipv6PrefixLength < 128 && Number(ip.slice(slash + 1)) < ipv6PrefixLength) return ip;
  if (isIP(address) !== 6 || ipv6PrefixLength >= 128) return slash === -1 ? ip : address;
  const groups = ipv6Groups(address);
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, ipv6PrefixLength - 16 * i));
    const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
    groups[i] = (groups[i] ?? 0) & mask;
  }
  const network = new SocketAddress({
    address: groups.map((g) => g.toString(16)).join(':'),
    family: 'ipv6',
  }).address;
  return `${network}/${ipv6PrefixLength}`;
}
