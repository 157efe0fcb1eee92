import type { AcceptedShare } from '../../model/share-ledger.js';

/** How often collected shares go to the hashrate buckets. */
export const DEFAULT_HASHRATE_FLUSH_INTERVAL_MS = 1_000;
/** A flush starts early once this many shares wait (bounds memory under a share flood). */
export const DEFAULT_HASHRATE_MAX_PENDING_SHARES = 50_000;

export interface HashrateBatcherOptions {
  readonly flushIntervalMs?: number;
  readonly maxPendingShares?: number;
}

export interface HashrateBatcherModules {
  /** Writes one group of shares to the buckets (HashrateBucketWriter.record). */
  readonly record: (shares: readonly AcceptedShare[]) => Promise<void>;
  /** A failed write: stats only, so it is reported and dropped, never retried twice over. */
  readonly onError: (error: unknown, shares: number) => void;
}

/**
 * Collects recorded shares and writes them to the hashrate buckets once per interval instead of
 * once per ledger batch. The bucket commands scale with the distinct miners in a write, not with
 * its shares, so at thousands of shares per second per-batch writes cost several Redis commands per
 * share; per-second writes cost a few per miner per second. A crash loses at most one interval of
 * chart data (stats, never balances).
 */
export class HashrateBatcher {
  readonly #modules: HashrateBatcherModules;
  readonly #flushIntervalMs: number;
  readonly #maxPendingShares: number;
  #pending: AcceptedShare[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: HashrateBatcherOptions, modules: HashrateBatcherModules) {
    this.#modules = modules;
    this.#flushIntervalMs = Math.max(0, options.flushIntervalMs ?? DEFAULT_HASHRATE_FLUSH_INTERVAL_MS);
    this.#maxPendingShares = Math.max(1, options.maxPendingShares ?? DEFAULT_HASHRATE_MAX_PENDING_SHARES);
  }

  /** Shares the ledger made durable. Ignored after stop(). */
  add(shares: readonly AcceptedShare[]): void {
    if (this.#stopped || shares.length === 0) return;
    for (const share of shares) this.#pending.push(share);
    if (this.#pending.length >= this.#maxPendingShares) {
      this.flush();
      return;
    }
    this.#timer ??= setTimeout(() => this.flush(), this.#flushIntervalMs);
  }

  /** Starts writing what is pending; resolves when that write (and any earlier one) is done. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const shares = this.#pending;
    if (shares.length > 0) {
      this.#pending = [];
      // Writes run one after another, so buckets never see two writes of one window race.
      this.#writing = this.#writing.then(() =>
        this.#modules.record(shares).catch((error: unknown) => this.#modules.onError(error, shares.length)),
      );
    }
    return this.#writing;
  }

  /** Writes what is pending and stops collecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.flush();
  }
}
