import { FuegoPoolError } from '../../errors.js';

/** One listening port. TLS material is given as PEM text: reading files is the config loader's job. */
export interface StratumPortOptions {
  /** 0 picks a free port (tests); see StratumServer.listening(). */
  readonly port: number;
  /** Listen address: "0.0.0.0" or "::" serves the world. */
  readonly host: string;
  /** Start difficulty of miners on this port. */
  readonly difficulty: number;
  readonly fixedDifficulty: boolean;
  readonly solo: boolean;
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** Every bound on what one peer can make the server hold or wait for. */
export interface StratumLimits {
  /** A line longer than this (without "\n") closes the connection. */
  readonly maxLineBytes: number;
  /** Received but unanswered requests per connection; at this many the socket stops being read. */
  readonly maxPendingRequests: number;
  /** Bytes queued for a peer that does not read; beyond this the peer is a slow consumer and is dropped. */
  readonly maxSendQueueBytes: number;
  /** From TCP accept (TLS handshake included) to a successful login. */
  readonly loginTimeoutMs: number;
  /** No request at all (keepalived counts) for this long after login closes the connection. */
  readonly idleTimeoutMs: number;
  /** Queued writes that make no progress for this long close the connection. */
  readonly writeTimeoutMs: number;
  readonly maxConnectionsPerIp: number;
  readonly maxConnections: number;
  /** Connections from one IPv6 network of ipv6AggregatePrefixLength bits (connection-admission.ts). */
  readonly maxConnectionsPerIpv6Aggregate: number;
  readonly ipv6AggregatePrefixLength: number;
  /** Logins on one connection; the next one is refused (TOO_MANY_LOGINS) and the connection closes. */
  readonly maxLoginsPerConnection: number;
  /** A graceful close (fatal error, shutdown) waits this long for replies and the peer, then destroys. */
  readonly closeGraceMs: number;
  /** How often a connection waiting on backend.canAcceptSubmits() asks again. */
  readonly submitPollMs: number;
  /** Connections the kernel queues for a port until they are accepted (listen()'s backlog). */
  readonly listenBacklog: number;
}

export interface StratumServerOptions {
  readonly ports: readonly StratumPortOptions[];
  readonly limits: StratumLimits;
  /** The per-IP cap counts an IPv6 peer by its network of this many bits (see peerKey). */
  readonly ipv6PrefixLength: number;
}

export type StratumServerErrorCode =
  | 'BAD_OPTIONS'
  | 'BAD_TLS_MATERIAL'
  | 'PORT_IN_USE'
  | 'LISTEN_FAILED'
  | 'ALREADY_STARTED';

export class StratumServerError extends FuegoPoolError<StratumServerErrorCode> {}

/** Checks every limit and returns a frozen copy; throws BAD_OPTIONS naming the key. */
export function checkedLimits(limits: StratumLimits): StratumLimits {
  const copy: StratumLimits = { ...limits };
  for (const [key, value] of Object.entries(copy)) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new StratumServerError('BAD_OPTIONS', `stratum limits.${key} must be a positive integer`, {
        key,
        value,
      });
    }
  }
  return Object.freeze(copy);
}

export function validatePorts(ports: readonly StratumPortOptions[]): void {
  if (ports.length === 0) throw new StratumServerError('BAD_OPTIONS', 'stratum needs at least one port');
  ports.forEach((p, index) => {
    if (!Number.isInteger(p.port) || p.port < 0 || p.port > 65535) {
      throw new StratumServerError('BAD_OPTIONS', `stratum ports[${index}].port is not a TCP port`, {
        port: p.port,
      });
    }
    if (!(Number.isFinite(p.difficulty) && p.difficulty > 0)) {
      throw new StratumServerError('BAD_OPTIONS', `stratum ports[${index}].difficulty must be positive`, {
        port: p.port,
      });
    }
  });
}
