import type { PayoutBatch, PayoutWriter, PrepareBatchRequest } from './payout-batch.js';

/**
 * Where the payout runner keeps its batches and its lock (src/store/payments/payout-store.ts on Redis).
 * Every write is refused (a thrown error with `code` FENCED or LOCK_LOST) unless the writer still
 * holds the payout lock and, when it has one, the leader's fencing token.
 */
export interface PayoutJournal {
  /** True when this token now holds the payout lock. */
  acquireLock(lockToken: string, ttlMs: number): Promise<boolean>;
  renewLock(lockToken: string, ttlMs: number): Promise<boolean>;
  releaseLock(lockToken: string): Promise<void>;

  /** The intent: debits every transfer into in-payout and writes the batch `prepared`. */
  prepareBatch(writer: PayoutWriter, request: PrepareBatchRequest): Promise<void>;
  /** prepared -> sending, just before the wallet is called. */
  markSending(writer: PayoutWriter, batchId: string): Promise<void>;
  noteError(writer: PayoutWriter, batchId: string, error: string, kind: string): Promise<void>;
  /** The wallet's transaction is known; false when the batch was already sent. */
  markSent(
    writer: PayoutWriter,
    batch: PayoutBatch,
    outcome: { txHash: string; actualFeeAtomic: bigint; resolution: string },
  ): Promise<boolean>;
  /**
   * A sent batch recorded with its fee assumed (FEE_ASSUMED_RESOLUTION) gets the fee the wallet
   * paid: its miners get back what mark_sent would have refunded, the pool's part of the fee and
   * the payment records follow, and the batch is marked FEE_READ_LATER_RESOLUTION. False when there
   * is nothing to settle (already settled, reverted, or not an assumed fee): exactly once per batch.
   */
  settleAssumedFee(writer: PayoutWriter, batch: PayoutBatch, actualFeeAtomic: bigint): Promise<boolean>;
  /** The batch certainly did not go out: every debit returns to its balance. */
  rollback(
    writer: PayoutWriter,
    batch: PayoutBatch,
    reason: string,
    requiredState: 'prepared' | 'sending',
  ): Promise<void>;

  /**
   * A sent batch whose transaction the wallet dropped unmined: what it debited goes back to the
   * balances and the batch becomes failed (a later sighting of the transaction debits again).
   */
  revertSent(writer: PayoutWriter, batch: PayoutBatch, reason: string): Promise<void>;
  /**
   * A sent batch's transaction is deep in the chain: no longer watched. `note` says who confirmed
   * it when not the wallet's record (the operator).
   */
  confirmSent(writer: PayoutWriter, batchId: string, blockIndex: number, note?: string): Promise<void>;
  /** Sent batches still watched until their transaction is deep in the chain, in watch order. */
  listUnconfirmedSent(): Promise<PayoutBatch[]>;
  /**
   * A sent batch the wallet could not tell about goes to the back of the watch order (as if sent
   * at `atMs`), so unreadable ones never take every read of a pass. Changes no money.
   */
  deferSentWatch(batchId: string, atMs: number): Promise<void>;
  /**
   * Whether the wallet had no record (29 "Object not found") of a watched sent batch's transaction
   * at its last read: walletd reset, or its file restored from a backup older than the send. Such a
   * batch is never settled on that alone. Changes no money; true when the mark changed.
   */
  markWalletMissing(writer: PayoutWriter, batchId: string, missing: boolean): Promise<boolean>;
  /**
   * The operator was told that a watched sent batch is not mined hours after its send
   * (payout-unmined): marked on the batch (unminedNotifiedAtMs), so it is told once whatever
   * restarts or fails over. Changes no money; true when marked now, false when marked already.
   */
  markUnminedNotified(writer: PayoutWriter, batchId: string): Promise<boolean>;
  /** The sent batches marked wallet-missing: batch id -> when first marked (ms). */
  walletMissingSince(): Promise<Map<string, number>>;

  getBatch(batchId: string): Promise<PayoutBatch | null>;
  /** Which of these batch ids the journal has a batch for (any state). */
  knownBatchIds(batchIds: readonly string[]): Promise<Set<string>>;
  /** Batches in state prepared or sending, oldest first. */
  listOpenBatches(): Promise<PayoutBatch[]>;
  setLastRun(atMs: number): Promise<void>;
  getLastRun(): Promise<number | null>;
}
