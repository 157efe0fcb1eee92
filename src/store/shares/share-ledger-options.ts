import { StoreError } from '../store-error.js';

/**
 * A block candidate (or a refused block's promotion) is retried this long while Redis is
 * unavailable (both writes are idempotent per block hash, so a retry after a lost reply is
 * harmless; losing the write would lose the block).
 */
const DEFAULT_CANDIDATE_RETRY_MS = 30_000;
export interface RedisShareLedgerOptions {
  readonly keyPrefix: string;
  /** Shares per record_shares call (config `store`, like the three below). */
  readonly maxBatchSize: number;
  /** How long the first share of a batch waits for company; 0 means "end of this event-loop turn". */
  readonly maxBatchDelayMs: number;
  /** Shares kept in the stream (approximate); must hold one PPLNS window's shares at a find. */
  readonly streamMaxLength: number;
  /** Shares queued or in flight beyond which recordShare refuses (memory bound while Redis is down). */
  readonly maxPendingShares: number;
  readonly candidateRetryMs?: number;
  /**
   * With Sentinel (or any replicated Redis): a batch counts as durable only once this many replicas
   * acknowledged it (WAIT after the write, same connection). Replication is asynchronous, so
   * without it a failover can drop shares the miners were already told were OK.
   */
  readonly replicaAcks?: { readonly replicas: number; readonly timeoutMs: number };
}

/** The ledger's tuning, each option checked (the retry window defaulted: it is not in the config). */
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
    maxBatchSize: positiveInteger(opts.maxBatchSize, 'maxBatchSize'),
    maxBatchDelayMs: positiveInteger(opts.maxBatchDelayMs, 'maxBatchDelayMs', 0),
    streamMaxLength: positiveInteger(opts.streamMaxLength, 'streamMaxLength'),
    maxPendingShares: positiveInteger(opts.maxPendingShares, 'maxPendingShares'),
    candidateRetryMs: positiveInteger(
      opts.candidateRetryMs ?? DEFAULT_CANDIDATE_RETRY_MS,
      'candidateRetryMs',
      0,
    ),
  };
}

function positiveInteger(value: number, name: string, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new StoreError('INVALID_OPTION', `option ${name} must be an integer >= ${min}`, { name, value });
  }
  return value;
}
