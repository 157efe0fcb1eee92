import type { Logger } from '../../log/logger.js';
import {
  type PayoutBatch,
  type PayoutWriter,
  sentAtMs,
  UNMINED_AFTER_MS,
} from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import type { PoolEventMap } from '../../pool/events.js';
import type { UnminedReport } from '../../pool/payouts/payout-reports.js';
import {
  fuegodSightings,
  isUnmined,
  type SightingDaemon,
  unminedAdvice,
} from '../../pool/payouts/unmined-payouts.js';

/**
 * Late sent batches fuegod is asked about in one pass, oldest in the watch order first: a pool
 * read and at most this many transaction lookups per pass, however many are late; the others are
 * asked about in the next passes (those told are not asked again).
 */
export const MAX_UNMINED_ASKED_PER_PASS = 20;

export interface UnminedNoticeModules {
  readonly journal: Pick<PayoutJournal, 'listUnconfirmedSent' | 'markUnminedNotified' | 'walletMissingSince'>;
  readonly daemon: SightingDaemon;
  readonly logger: Logger;
  readonly clock: () => number;
}

/**
 * The sent batches still watched, in watch order, and the wallet-missing marks (batch id -> when
 * marked), as the pass's sent watch read and left them (PayoutRecovery.watchSentBatches).
 */
export interface WatchedSent {
  readonly unconfirmedSent: readonly PayoutBatch[];
  readonly walletMissing: ReadonlyMap<string, number>;
}

/**
 * The sent batches whose transaction is still not mined UNMINED_AFTER_MS after its send, not told
 * yet: fuegod is asked where each transaction is (unmined-payouts.ts), and each it answered for is
 * marked told in Redis (mark_unmined_notified, fenced) and returned, so the leader publishes
 * `payout-unmined` once per batch across restarts and failovers. While fuegod cannot answer
 * nothing is marked: a later pass asks again. A batch marked wallet-missing is left out: walletd
 * has no record of its transaction (payout-unknown-to-wallet told it; `payout resolve` settles it).
 * `watched`: what the pass's sent watch read and left (the pass reads them once); without it both
 * are read here.
 */
export async function noticeUnminedBatches(
  writer: PayoutWriter,
  modules: UnminedNoticeModules,
  watched?: WatchedSent,
): Promise<UnminedReport[]> {
  const { journal, daemon, logger } = modules;
  const nowMs = modules.clock();
  const sent = watched?.unconfirmedSent ?? (await journal.listUnconfirmedSent());
  const untold = sent.filter(
    (batch) => batch.state === 'sent' && batch.unminedNotifiedAtMs === null && isUnmined(batch, nowMs),
  );
  if (untold.length === 0) return [];
  // One the wallet has no record of is payout-unknown-to-wallet's: walletd cannot cancel it.
  const walletMissing = watched?.walletMissing ?? (await journal.walletMissingSince());
  const late = untold.filter((batch) => !walletMissing.has(batch.id)).slice(0, MAX_UNMINED_ASKED_PER_PASS);
  if (late.length === 0) return [];
  const sightings = await fuegodSightings(late, daemon, nowMs);
  const told: UnminedReport[] = [];
  const unanswered: string[] = [];
  for (const batch of late) {
    const sighting = sightings.get(batch.id);
    if (sighting === undefined || batch.txHash === null) continue;
    if (sighting.kind === 'unreachable') {
      unanswered.push(batch.id);
      continue;
    }
    if (!(await journal.markUnminedNotified(writer, batch.id))) continue;
    const report: UnminedReport = {
      batchId: batch.id,
      txHash: batch.txHash,
      recipients: batch.transfers.length,
      amountAtomic: batch.totalAmountAtomic,
      sentAtMs: sentAtMs(batch),
      ageMs: nowMs - sentAtMs(batch),
      sighting,
      advice: unminedAdvice(sighting),
    };
    logger.warn(
      { batchId: batch.id, txHash: batch.txHash, sighting: sighting.kind, advice: report.advice },
      `a sent payout is not mined ${UNMINED_AFTER_MS / 3_600_000} h after its send: the operator is told (payout-unmined)`,
    );
    told.push(report);
  }
  if (unanswered.length > 0) {
    const [first] = sightings.values();
    logger.warn(
      { batchIds: unanswered, detail: first?.kind === 'unreachable' ? first.detail : '' },
      'fuegod not reachable: sent payouts not mined for hours are told once fuegod says where they are',
    );
  }
  return told;
}

/** The payout-unmined event of a batch a pass told (the leader's loop and a standalone pass publish it). */
export function unminedEvent(report: UnminedReport, timestampMs: number): PoolEventMap['payout-unmined'] {
  return {
    batchId: report.batchId,
    transactionHash: report.txHash,
    recipients: report.recipients,
    amountAtomic: report.amountAtomic,
    sentAtMs: report.sentAtMs,
    ageMs: report.ageMs,
    sighting: report.sighting.kind,
    blockHeight: report.sighting.kind === 'in-block' ? report.sighting.height : null,
    advice: report.advice,
    timestampMs,
  };
}
