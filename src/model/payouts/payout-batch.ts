/**
 * A payout batch: one wallet transaction's worth of transfers, and the state machine that makes
 * it exactly-once (the journal in src/store keeps it; the payout runner drives it).
 *
 * prepared: intent written (balances debited into in-payout), the wallet not called yet.
 * sending: the wallet call may be in flight or done; only the wallet's records can tell.
 * sent: the transaction is known (hash); in-payout moved to paid. Watched until 10 blocks deep;
 *   while the wallet has no record of it (reset, restored backup) it is marked wallet-missing and
 *   stays sent until the wallet finds it again or the operator settles it (payout-journal.ts).
 * failed: rolled back; the debits are back in the balances.
 */
export type BatchState = 'prepared' | 'sending' | 'sent' | 'failed';

export interface BatchTransfer {
  /** The miner's account (as credited; may be an integrated address). */
  readonly address: string;
  /** What the wallet is asked to pay (the standard address of an integrated one). */
  readonly destination: string;
  /** Reaches the miner. */
  readonly amountAtomic: bigint;
  /** The miner's share of the network fee (0 when the pool pays it). */
  readonly feeShareAtomic: bigint;
  /** Taken from the balance: amount + fee share. */
  readonly debitAtomic: bigint;
}

export interface PayoutBatch {
  readonly id: string;
  readonly state: BatchState;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  readonly transfers: readonly BatchTransfer[];
  /** 64 hex or "" (one payment id per transaction). */
  readonly paymentId: string;
  readonly totalDebitAtomic: bigint;
  readonly totalAmountAtomic: bigint;
  /** The fee the batch was planned with (walletd decides the real one: actualFeeAtomic). */
  readonly networkFeeAtomic: bigint;
  readonly feePaidBy: 'pool' | 'miners';
  /** Wallet blockCount when the intent was written: where a recovery scan starts. */
  readonly walletBlockCount: number;
  readonly sendingAtMs: number | null;
  readonly txHash: string | null;
  readonly actualFeeAtomic: bigint | null;
  /**
   * What mark_sent gave back of each transfer's fee share (the miners were charged more than the
   * wallet paid), in transfer order; null while not sent, or sent before refunds existed.
   */
  readonly feeRefundsAtomic: readonly bigint[] | null;
  readonly lastError: string | null;
  readonly lastErrorKind: string | null;
  readonly failReason: string | null;
  readonly resolution: string | null;
  readonly resolvedAtMs: number | null;
  /**
   * When the leader told the operator that this sent batch is not mined UNMINED_AFTER_MS after its
   * send (payout-unmined, once per batch); null while it has not.
   */
  readonly unminedNotifiedAtMs: number | null;
}

/**
 * The resolution of a batch marked sent while the wallet could not tell its fee right after the
 * send: the configured fee is recorded (nothing refunded) until a later pass reads the fee the
 * wallet paid and settles the batch (then FEE_READ_LATER_RESOLUTION).
 */
export const FEE_ASSUMED_RESOLUTION = 'wallet-reply (fee assumed)';
/** A FEE_ASSUMED_RESOLUTION batch whose real fee a later pass read and settled, once. */
export const FEE_READ_LATER_RESOLUTION = 'wallet-reply (fee read later)';

/**
 * When a sent batch was sent: mark_sent's time (resolvedAtMs, the time of the miners' payment
 * rows). Not updatedAtMs, which confirm_sent moves to the confirmation hours later. A batch
 * written before resolvedAtMs existed falls back to updatedAtMs.
 */
export function sentAtMs(batch: PayoutBatch): number {
  return batch.resolvedAtMs ?? batch.updatedAtMs;
}

/**
 * A sent payout not 10 blocks deep this long after its send is not being mined (one confirms in
 * ~1.5 h at 480 s blocks): `fuego-pool report` then needs the operator, as the
 * FuegoPoolPayoutUnconfirmed alert does (deploy/prometheus/alerts.yml, the same 6 h).
 */
export const UNMINED_AFTER_MS = 6 * 3_600_000;

/** A sent batch whose fee the wallet could not tell right after the send (mark_sent assumed it). */
export function isFeeAssumed(batch: PayoutBatch): boolean {
  return batch.state === 'sent' && batch.resolution === FEE_ASSUMED_RESOLUTION;
}

export interface PrepareBatchRequest {
  readonly id: string;
  readonly transfers: readonly BatchTransfer[];
  readonly paymentId: string;
  readonly networkFeeAtomic: bigint;
  readonly feePaidBy: 'pool' | 'miners';
  readonly walletBlockCount: number;
}

/** Who may write: the fencing token (leader) and the payout lock token. */
export interface PayoutWriter {
  readonly fencingToken: string;
  readonly lockToken: string;
}
