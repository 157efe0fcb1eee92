import type { PayoutBatch } from '../../pool/payouts/payout-batch.js';
import type { UnknownPayment } from '../../pool/payouts/payout-watch.js';

/** One batch as a pass reports it. */
export interface BatchReport {
  readonly batchId: string;
  readonly state: PayoutBatch['state'] | 'planned';
  readonly recipients: number;
  readonly amountAtomic: bigint;
  readonly txHash: string | null;
  /** The network fee the batch was planned with. */
  readonly networkFeeAtomic: bigint;
  readonly note: string;
}

/** `wallet-upkeep`: the pass did not run while fusion transactions are pending (payout-pass.ts). */
export type PayoutSkipReason =
  | 'locked'
  | 'not-leader'
  | 'wallet-unhealthy'
  | 'redis-not-durable'
  | 'backoff'
  | 'wallet-upkeep';

/** Why a pass stopped paying new batches. */
export interface PassStop {
  readonly skipped: PayoutSkipReason;
  readonly detail: string;
}

export interface PayoutRunSummary {
  /** Why no new batch was paid, if so (recovery may still have run). */
  readonly skipped: PayoutSkipReason | null;
  readonly detail: string;
  readonly recovered: readonly BatchReport[];
  readonly batches: readonly BatchReport[];
  readonly stillOpen: readonly BatchReport[];
  /** Miners due but not paid in this pass, and why (also kept in the watch list and logged). */
  readonly skippedMiners: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
  /** Tagged wallet transactions Redis had no batch for, first seen in this pass. */
  readonly unknownPayments: readonly UnknownPayment[];
}

/** A stored batch as a report line. */
export function batchReport(
  batch: PayoutBatch,
  state: BatchReport['state'],
  txHash: string | null,
  note: string,
): BatchReport {
  return {
    batchId: batch.id,
    state,
    recipients: batch.transfers.length,
    amountAtomic: batch.totalAmountAtomic,
    txHash,
    networkFeeAtomic: batch.networkFeeAtomic,
    note,
  };
}

export function emptySummary(skipped: PayoutSkipReason | null, detail: string): PayoutRunSummary {
  return {
    skipped,
    detail,
    recovered: [],
    batches: [],
    stillOpen: [],
    skippedMiners: [],
    unknownPayments: [],
  };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
