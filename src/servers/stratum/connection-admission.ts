import { peerKey } from '../../pool/peer-key.js';
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
  /** Per peer key: an IPv4 address, or an IPv6 network of stratum.ipv6PrefixLength bits. */
  readonly maxConnectionsPerIp: number;
  /**
   * Per IPv6 network of ipv6AggregatePrefixLength bits (a /48 by default): a home line often holds
   * a /56 and a tunnel broker hands out /48s, so one person may hold many /64 peer keys.
   */
  readonly maxConnectionsPerIpv6Aggregate: number;
  readonly ipv6AggregatePrefixLength: number;
}

/** The connection caps, counted in this process. */
export class ConnectionCounter implements ConnectionAdmission {
  readonly #caps: ConnectionCaps;
  readonly #byIp = new Map<string, number>();
  readonly #byAggregate = new Map<string, number>();
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
    const aggregate = this.#aggregateOf(ip);
    if (
      aggregate !== undefined &&
      (this.#byAggregate.get(aggregate) ?? 0) >= this.#caps.maxConnectionsPerIpv6Aggregate
    ) {
      return 'per-network-limit';
    }
    this.#byIp.set(ip, perIp + 1);
    if (aggregate !== undefined) addTo(this.#byAggregate, aggregate, 1);
    this.#total += 1;
    return 'admit';
  }

  /** Ignores an IP it holds no connection of, so a stray release cannot push a count below 0. */
  release(ip: string): void {
    if (this.countOf(ip) === 0) return;
    addTo(this.#byIp, ip, -1);
    const aggregate = this.#aggregateOf(ip);
    if (aggregate !== undefined) addTo(this.#byAggregate, aggregate, -1);
    this.#total -= 1;
  }

  /** The IPv6 aggregate network of a peer key; undefined for IPv4. */
  #aggregateOf(ip: string): string | undefined {
    return ip.includes(':') ? peerKey(ip, this.#caps.ipv6AggregatePrefixLength) : undefined;
  }
}

/**
 * At most `cap` connections in this process, whatever `inner` (the host's caps) would allow: the
 * process's open-files limit, past which the kernel would refuse every new file, Redis reconnects
 * and verifier restarts included. Checked before `inner`, so a refused connection costs the
 * parent no round trip.
 */
export class ProcessConnectionCap implements ConnectionAdmission {
  readonly #cap: number;
  readonly #inner: ConnectionAdmission;
  #held = 0;

  constructor(cap: number, inner: ConnectionAdmission) {
    this.#cap = cap;
    this.#inner = inner;
  }

  admit(ip: string): AdmissionVerdict | Promise<AdmissionVerdict> {
    if (this.#held >= this.#cap) return 'open-files';
    // Counted while the inner answer is pending, so a burst cannot overshoot the cap.
    this.#held += 1;
    let verdict: AdmissionVerdict | Promise<AdmissionVerdict>;
    try {
      verdict = this.#inner.admit(ip);
    } catch (error) {
      this.#held -= 1;
      throw error;
    }
    if (typeof verdict === 'string') return this.#settle(verdict);
    return verdict.then(
      (answer) => this.#settle(answer),
      (error: unknown) => {
        this.#held -= 1;
        throw error;
      },
    );
  }

  release(ip: string): void {
    this.#held -= 1;
    this.#inner.release(ip);
  }

  #settle(verdict: AdmissionVerdict): AdmissionVerdict {
    if (verdict !== 'admit') this.#held -= 1;
    return verdict;
  }
}

/** Adds `delta` to the count of `key`, dropping the key at 0. */
function addTo(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
