import { peerKey } from '../../pool/peer-key.js';

/**
 * The key the API's per-peer caps count a client by: its IP, an IPv6 client by its network
 * (stratum.ipv6PrefixLength), an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function apiPeerKey(ip: string | undefined, ipv6PrefixLength: number): string {
  const address = ip ?? 'unknown';
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return peerKey(plain, ipv6PrefixLength);
}
