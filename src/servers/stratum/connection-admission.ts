import type { RefusalReason } from './stratum-metrics.js';

export type AdmissionVerdict = 'admit' | RefusalReason;

/**
 * Decides whether a new stratum connection may open, and hears when one it admitted closes. The
 * server's own ConnectionCounter answers at once; a stratum child process asks its parent, which
 * counts the connections of every process on the host (one cap per host, not per process).
 */
export interface ConnectionAdmission {
  admit(ip: string): AdmissionVerdict | Promise<AdmissionVerdict>;
  /** Called exactly once for every connection that was answered 'admit', when it closes. */
  release(ip: string): void;
}

export interface ConnectionCaps {
  readonly maxConnections: number;
  readonly maxConnectionsPerIp: number;
}

/** The connection caps, counted in this process. */
export class ConnectionCounter implements ConnectionAdmission {
  readonly #caps: ConnectionCaps;
  readonly #byIp = new Map<string, number>();
  #total = 0;

  constructor(caps: ConnectionCaps) {
    this.#caps = caps;
  }

  get total(): number {
    return this.#total;
  }

  countOf(ip: string): number {
    return this.#byIp.get(ip) ?? 0;
  }

  admit(ip: string): AdmissionVerdict {
    const perIp = this.countOf(ip);
    if (this.#total >= this.#caps.maxConnections) return 'max-connections';
    if (perIp >= this.#caps.maxConnectionsPerIp) return 'per-ip-limit';
    this.#byIp.set(ip, perIp + 1);
    this.#total += 1;
    return 'admit';
  }

  /** Ignores an IP it holds no connection of, so a stray release cannot push a count below 0. */
  release(ip: string): void {
    const perIp = this.countOf(ip);
    if (perIp === 0) return;
    if (perIp === 1) this.#byIp.delete(ip);
    else this.#byIp.set(ip, perIp - 1);
    this.#total -= 1;
  }
}
