/**
 * A token bucket per peer (an IP, or an IPv6 network: peer-key.ts): `burst` at once, refilled at
 * `perMinute`. Used to bound what one host may make the pool spend on its behalf (a new login
 * address costs ~1.4 ms of event-loop time in ed25519 point checks). At most `maxPeers` buckets
 * are kept; the least recently used go first, which only ever gives a peer a full bucket back.
 */
export interface PeerBudgetOptions {
  readonly burst: number;
  readonly perMinute: number;
  readonly maxPeers: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class PeerBudget {
  readonly #opts: PeerBudgetOptions;
  readonly #buckets = new Map<string, Bucket>();

  constructor(opts: PeerBudgetOptions) {
    this.#opts = opts;
  }

  /** Spends one token of `peer`'s budget; false (nothing spent) when it is empty. */
  take(peer: string, nowMs: number): boolean {
    const { burst, perMinute, maxPeers } = this.#opts;
    const bucket = this.#buckets.get(peer) ?? { tokens: burst, atMs: nowMs };
    this.#buckets.delete(peer); // re-inserted last: the map's first keys are the least recently used
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, nowMs - bucket.atMs) * perMinute) / 60_000);
    bucket.atMs = nowMs;
    const granted = bucket.tokens >= 1;
    if (granted) bucket.tokens -= 1;
    this.#buckets.set(peer, bucket);
    if (this.#buckets.size > maxPeers) {
      const oldest = this.#buckets.keys().next();
      if (oldest.done !== true) this.#buckets.delete(oldest.value);
    }
    return granted;
  }
}
