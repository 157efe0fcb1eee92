import { unknownPaymentAmount } from '../../model/payouts/payout-watch.js';
import type { BanEntry } from '../../pool/ban-registry.js';
import type { BatchReport, PayoutRunSummary } from '../../pool/payouts/payout-reports.js';
import type { BanView, PayoutBatchView, PayoutSummaryView } from './control-protocol.js';

/** The control socket's wire views of ban entries and payout passes (amounts as decimal strings). */

export function banView(entry: BanEntry): BanView {
  return {
    ip: entry.ip,
    bannedAtMs: entry.bannedAtMs,
    untilMs: entry.untilMs,
    remainingSeconds: entry.remainingSeconds,
    offences: entry.offences,
    manual: entry.manual,
    reason: entry.reason,
  };
}

function batchView(report: BatchReport): PayoutBatchView {
  return {
    batchId: report.batchId,
    state: report.state,
    recipients: report.recipients,
    amountAtomic: report.amountAtomic.toString(),
    txHash: report.txHash,
    networkFeeAtomic: report.networkFeeAtomic.toString(),
    note: report.note,
  };
}

export function summaryView(summary: PayoutRunSummary): PayoutSummaryView {
  return {
    skipped: summary.skipped,
    detail: summary.detail,
    recovered: summary.recovered.map(batchView),
    batches: summary.batches.map(batchView),
    stillOpen: summary.stillOpen.map(batchView),
    skippedMiners: summary.skippedMiners.map((m) => ({ address: m.address, reason: m.reason })),
    unknownPayments: summary.unknownPayments.map((p) => ({
      txHash: p.txHash,
      batchId: p.batchId,
      recipients: p.transfers.length,
      amountAtomic: unknownPaymentAmount(p).toString(),
    })),
  };
}
