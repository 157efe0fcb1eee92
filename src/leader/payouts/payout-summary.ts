import type { PayoutBatch } from '../../model/payouts/payout-batch.js';
import type { BatchReport, PayoutRunSummary, PayoutSkipReason } from '../../pool/payouts/payout-reports.js';

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
    walletMissing: [],
    unmined: [],
  };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
