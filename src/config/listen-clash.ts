import { isIP } from 'node:net';
import { canonicalIp } from './canonical-ip.js';

/** A TCP listener a config asks for: its host as written and its port (0: any free port). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Whether two listeners would fight for one port (the second bind failing with EADDRINUSE). A
 * wildcard takes the port on every address of its family: "0.0.0.0" on every IPv4 address, "::"
 * (dual-stack, as Node binds it) on every address. Host names are compared as written only, since
 * what they resolve to is not known here. Port 0 never clashes.
 */
export function listenersClash(a: ListenAddress, b: ListenAddress): boolean {
  if (a.port === 0 || a.port !== b.port) return false;
  const [hostA, hostB] = [spelling(a.host), spelling(b.host)];
  if (hostA === hostB || hostA === '::' || hostB === '::') return true;
  return (hostA === '0.0.0.0' && isIP(hostB) === 4) || (hostB === '0.0.0.0' && isIP(hostA) === 4);
}

function spelling(host: string): string {
  return canonicalIp(host) ?? host;
}
