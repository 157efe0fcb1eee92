import { peerKey, unmappedIp } from '../../pool/peer-key.js';

/**
 * A client's IP as the API's limits see it: an IPv4-mapped IPv6 address (what a server listening
 * on "::" reports for an IPv4 client) as its IPv4 address, so that it matches api.rateLimit.exemptIps
 * and counts as the same peer as when the server listens on an IPv4 address.
 */
export function apiClientIp(ip: string | undefined): string {
  return unmappedIp(ip ?? 'unknown');
}

/**
 * The key the API's per-peer caps count a client by: its IP (apiClientIp), an IPv6 client by its
 * network (stratum.ipv6PrefixLength).
 */
export function apiPeerKey(ip: string | undefined, ipv6PrefixLength: number): string {
  return peerKey(apiClientIp(ip), ipv6PrefixLength);
}
