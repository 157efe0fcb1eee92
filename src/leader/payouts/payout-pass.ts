import type { Logger } from '../../log/logger.js';
import type { HeldPayout } from '../../model/payouts/payout-watch.js';
import type { PayoutRunSummary, UpkeepReport } from '../../pool/payouts/payout-reports.js';
import type { PayoutRunner } from './payout-runner.js';
import { FUSION_SPENDABLE_BLOCKS, type WalletUpkeep } from './wallet-upkeep.js';

export interface PayoutPassModules {
  readonly payouts: Pick<PayoutRunner, 'runOnce'>;
  /** Absent: a pass is the runner's alone. */
  readonly upkeep?: Pick<WalletUpkeep, 'runOnce' | 'hasRequest'>;
  /** Holds every due miner for a reason, for a pass that does not run (held-payouts.ts holdPass). */
  readonly holdPass?: (reason: string) => Promise<readonly HeldPayout[]>;
  readonly logger: Logger;
}

/**
 * One payout pass with the wallet's upkeep around it (the leader's timer, `fuego-pool payout`):
 * 1. the upkeep settles its fusions and consolidates if the wallet needs it; while fusion
 *    transactions are not spendable the pass does not run (the wallet would refuse its batches,
 *    or build them from the very outputs being joined) and every due miner is held with that reason;
 * 2. the runner's pass;
 * 3. if the wallet refused a batch in that pass for a reason that repeats, the upkeep runs again at
 *    once, so the consolidation starts now rather than a payout interval later.
 * An upkeep failure is logged and never stops the pass.
 */
export async function runPayoutPass(modules: PayoutPassModules): Promise<PayoutRunSummary> {
  const { payouts, upkeep, logger } = modules;
  if (upkeep !== undefined) {
    const before = await runUpkeep(upkeep, logger);
    if (before?.state === 'pending') {
      const detail = consolidatingReason(before.pending);
      const held = (await modules.holdPass?.(detail)) ?? [];
      return {
        skipped: 'wallet-upkeep',
        detail,
        recovered: [],
        batches: [],
        stillOpen: [],
        skippedMiners: held,
        unknownPayments: [],
        walletMissing: [],
        unmined: [],
      };
    }
  }
  const summary = await payouts.runOnce();
  if (upkeep === undefined || !upkeep.hasRequest()) return summary;
  const after = await runUpkeep(upkeep, logger);
  if (after === null || after.sent.length === 0) return summary;
  return { ...summary, detail: `${summary.detail}; ${consolidatingReason(after.pending)}` };
}

/** The held reason while fusions are pending (stable while the same fusions are). */
export function consolidatingReason(pending: readonly string[]): string {
  const hashes = pending.map((hash) => `${hash.slice(0, 16)}…`).join(', ');
  return `wallet consolidating its outputs (fusion tx ${hashes}): payouts wait until they are ${FUSION_SPENDABLE_BLOCKS} blocks deep`;
}

async function runUpkeep(
  upkeep: Pick<WalletUpkeep, 'runOnce'>,
  logger: Logger,
): Promise<UpkeepReport | null> {
  try {
    return await upkeep.runOnce();
  } catch (error) {
    logger.error({ err: error }, 'wallet upkeep failed; the payout pass goes on');
    return null;
  }
}
