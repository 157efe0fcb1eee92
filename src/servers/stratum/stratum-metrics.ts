/** Why the server closed a connection (peer-initiated closes are counted as `peer`). */
export type CloseReason =
  | 'peer'
  | 'login-failed'
  | 'login-timeout'
  | 'idle-timeout'
  | 'write-timeout'
  | 'slow-consumer'
  | 'protocol-violation'
  | 'fatal-error'
  | 'banned'
  /** Plain text on a TLS port: told TLS_REQUIRED, then closed. */
  | 'tls-required'
  | 'backend'
  | 'shutdown'
  | 'close-timeout'
  | 'socket-error';

/**
 * Connections turned away before a session could start. 'admission-timeout': the parent process
 * that counts the host's connections (stratum.processes > 1) did not answer in time.
 */
export type RefusalReason =
  | 'max-connections'
  /** This process holds what its open-files limit allows (ProcessConnectionCap). */
  | 'open-files'
  | 'per-ip-limit'
  | 'per-network-limit'
  | 'banned'
  | 'shutting-down'
  | 'admission-timeout';

export interface StratumMetricsSnapshot {
  readonly connections: {
    readonly current: number;
    readonly total: number;
    readonly refused: Readonly<Record<string, number>>;
    /** Peers whose new connections the kernel drops now (floodDrop: no longer seen, so not refused). */
    readonly floodDropped: number;
  };
  /** Keyed by the bound port number. */
  readonly byPort: Readonly<Record<string, { readonly current: number; readonly total: number }>>;
  /** Logged-in sessions right now. */
  readonly sessions: number;
  readonly protocolErrors: {
    readonly total: number;
    readonly byKind: Readonly<Record<string, number>>;
    /** The most recent offending IPs (bounded), with their violation counts. */
    readonly byIp: Readonly<Record<string, number>>;
  };
  /** Error replies sent, by StratumError code. */
  readonly errorReplies: Readonly<Record<string, number>>;
  readonly closes: Readonly<Record<string, number>>;
}

/** Keeps this many offending IPs; the oldest entry goes first (a scan cannot grow the map). */
const MAX_TRACKED_IPS = 1024;

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Plain counters of the stratum server. No timers, no I/O; read with snapshot(). */
export class StratumMetrics {
  #connectionsCurrent = 0;
  #connectionsTotal = 0;
  #sessionsCurrent = 0;
  #protocolErrorsTotal = 0;
  readonly #refused = new Map<string, number>();
  readonly #ports = new Map<string, { current: number; total: number }>();
  readonly #violationsByKind = new Map<string, number>();
  readonly #violationsByIp = new Map<string, number>();
  readonly #errorReplies = new Map<string, number>();
  readonly #closes = new Map<string, number>();

  connectionOpened(port: number): void {
    this.#connectionsCurrent++;
    this.#connectionsTotal++;
    const entry = this.#ports.get(String(port)) ?? { current: 0, total: 0 };
    entry.current++;
    entry.total++;
    this.#ports.set(String(port), entry);
  }

  connectionClosed(port: number, reason: CloseReason): void {
    this.#connectionsCurrent--;
    const entry = this.#ports.get(String(port));
    if (entry) entry.current--;
    bump(this.#closes, reason);
  }

  connectionRefused(reason: RefusalReason): void {
    bump(this.#refused, reason);
  }

  sessionOpened(): void {
    this.#sessionsCurrent++;
  }

  sessionClosed(): void {
    this.#sessionsCurrent--;
  }

  protocolViolation(ip: string, kind: string): void {
    this.#protocolErrorsTotal++;
    bump(this.#violationsByKind, kind);
    const count = (this.#violationsByIp.get(ip) ?? 0) + 1;
    // Re-insert so the map's insertion order is recency order.
    this.#violationsByIp.delete(ip);
    this.#violationsByIp.set(ip, count);
    if (this.#violationsByIp.size > MAX_TRACKED_IPS) {
      const oldest = this.#violationsByIp.keys().next().value;
      if (oldest !== undefined) this.#violationsByIp.delete(oldest);
    }
  }

  errorReply(code: string): void {
    bump(this.#errorReplies, code);
  }

  snapshot(): StratumMetricsSnapshot {
    const byPort: Record<string, { current: number; total: number }> = {};
    for (const [port, entry] of this.#ports) byPort[port] = { ...entry };
    return {
      connections: {
        current: this.#connectionsCurrent,
        total: this.#connectionsTotal,
        refused: Object.fromEntries(this.#refused),
        floodDropped: 0,
      },
      byPort,
      sessions: this.#sessionsCurrent,
      protocolErrors: {
        total: this.#protocolErrorsTotal,
        byKind: Object.fromEntries(this.#violationsByKind),
        byIp: Object.fromEntries(this.#violationsByIp),
      },
      errorReplies: Object.fromEntries(this.#errorReplies),
      closes: Object.fromEntries(this.#closes),
    };
  }
}
