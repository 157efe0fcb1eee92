import { StoreError } from '../store-error.js';

// Tuning constants. One EVALSHA of 256 shares takes Redis well under a millisecond of CPU.
/** Shares per record_shares call. */
const DEFAULT_MAX_BATCH_SIZE = 256;
/** How long the first share of a batch waits for company; 0 means "end of this event-loop turn". */
const DEFAULT_MAX_BATCH_DELAY_MS = 2;
/**
 * ~2M entries x ~100 B: ~200 MB of Redis memory; must hold one PPLNS window's shares at a find
 * (the window is fixed moments later, and the scripts do not trim while one waits).
 */
const DEFAULT_STREAM_MAX_LENGTH = 2_000_000;
/** Shares queued or in flight beyond which recordShare refuses (memory bound while Redis is down). */
const DEFAULT_MAX_PENDING_SHARES = 50_000;
/**
 * A block candidate (or a refused block's promotion) is retried this long while Redis is
 * unavailable (both writes are idempotent per block hash, so a retry after a lost reply is
 * harmless; losing the write would lose the block).
 */
const DEFAULT_CANDIDATE_RETRY_MS = 30_000;
export interface RedisShareLedgerOptions {
  readonly keyPrefix: string;
  readonly maxBatchSize?: number;
  readonly maxBatchDelayMs?: number;
  readonly streamMaxLength?: number;
  readonly maxPendingShares?: number;
  readonly candidateRetryMs?: number;
  /**
   * With Sentinel (or any replicated Redis): a batch counts as durable only once this many replicas
   * acknowledged it (WAIT after the write, same connection). Replication is asynchronous, so
   * without it a failover can drop shares the miners were already told were OK.
   */
  readonly replicaAcks?: { readonly replicas: number; readonly timeoutMs: number };
}

/** The ledger's tuning, each option checked and defaulted. */
export interface ShareLedgerSettings {
  readonly maxBatchSize: number;
  readonly maxBatchDelayMs: number;
  readonly streamMaxLength: number;
  readonly maxPendingShares: number;
  readonly candidateRetryMs: number;
}

/** Throws INVALID_OPTION naming the first option out of range. */
export function shareLedgerSettings(opts: RedisShareLedgerOptions): ShareLedgerSettings {
  return {
    maxBatchSize: positiveInteger(opts.maxBatchSize, DEFAULT_MAX_BATCH_SIZE, 'maxBatchSize'),
    maxBatchDelayMs: positiveInteger(opts.maxBatchDelayMs, DEFAULT_MAX_BATCH_DELAY_MS, 'maxBatchDelayMs', 0),
    streamMaxLength: positiveInteger(opts.streamMaxLength, DEFAULT_STREAM_MAX_LENGTH, 'streamMaxLength'),
    maxPendingShares: positiveInteger(opts.maxPendingShares, DEFAULT_MAX_PENDING_SHARES, 'maxPendingShares'),
    candidateRetryMs: positiveInteger(
      opts.candidateRetryMs,
      DEFAULT_CANDIDATE_RETRY_MS,
      'candidateRetryMs',
      0,
    ),
  };
}

function positiveInteger(value: number | undefined, fallback: number, name: string, min = 1): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min) {
    throw new StoreError('INVALID_OPTION', `option ${name} must be an integer >= ${min}`, { name, value });
  }
  return chosen;
}
