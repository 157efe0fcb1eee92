import type { Logger } from '../../log/logger.js';
import type { PayableBalance, PayableBalances } from '../../model/payouts/payable-balances.js';
import type { HeldPayout, PayoutWatch } from '../../model/payouts/payout-watch.js';

/** Miners considered when a whole pass is held (the payout runner considers as many per pass). */
const MAX_HELD_PER_PASS = 2_000;

/** Above this many miners newly held for one reason, one line says how many instead of one each. */
const LINES_PER_REASON = 10;

/**
 * The held list of this pass, each miner keeping its `sinceMs` while its reason stays the same,
 * and a warn line for each miner newly held or held for another reason (an info line when
 * released): a held payout is never silent, and an unchanged one is not repeated every pass.
 * When a whole pass is held (many miners, one reason), one line gives the count and the amount.
 */
export function trackHeldPayouts(
  previous: readonly HeldPayout[],
  current: ReadonlyArray<Omit<HeldPayout, 'sinceMs'>>,
  nowMs: number,
  logger: Logger,
): HeldPayout[] {
  const before = new Map(previous.map((h) => [h.address, h]));
  const held: HeldPayout[] = [];
  const newlyHeld = new Map<string, HeldPayout[]>();
  for (const entry of current) {
    const old = before.get(entry.address);
    before.delete(entry.address);
    if (old !== undefined && old.reason === entry.reason) {
      held.push({ ...entry, sinceMs: old.sinceMs });
      continue;
    }
    const fresh = { ...entry, sinceMs: nowMs };
    held.push(fresh);
    newlyHeld.set(entry.reason, [...(newlyHeld.get(entry.reason) ?? []), fresh]);
  }
  for (const [reason, entries] of newlyHeld) {
    if (entries.length <= LINES_PER_REASON) {
      for (const entry of entries) {
        logger.warn({ address: entry.address, amount: entry.amountAtomic.toString(), reason }, 'payout held');
      }
      continue;
    }
    const amount = entries.reduce((sum, e) => sum + e.amountAtomic, 0n);
    logger.warn(
      {
        miners: entries.length,
        amount: amount.toString(),
        reason,
        first: entries.slice(0, 3).map((e) => e.address),
      },
      'payouts held (fuego-pool report lists every miner)',
    );
  }
  const released = [...before.values()];
  if (released.length > LINES_PER_REASON) {
    logger.info({ miners: released.length }, 'payouts no longer held');
  } else {
    for (const entry of released) {
      logger.info({ address: entry.address, reason: entry.reason }, 'payout no longer held');
    }
  }
  return held;
}

/** What holding a whole payout pass needs: the payable balances and the runner's held list. */
export interface PassHold {
  readonly balances: PayableBalances;
  readonly watch: Pick<PayoutWatch, 'listHeld' | 'replaceHeld'>;
  readonly minPayoutAtomic: bigint;
  /** Miners' own thresholds: a miner below theirs is not due, so not held. */
  readonly thresholdOf?: (address: string) => Promise<bigint | undefined>;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/**
 * Records every miner a payout pass would have paid as held for `reason`, for a pass that does
 * not run (the wallet is consolidating its outputs): the same held list and log lines as a pass
 * that held them. Returns the list.
 */
export async function holdPass(hold: PassHold, reason: string): Promise<HeldPayout[]> {
  const payable = await hold.balances.listPayable(hold.minPayoutAtomic, MAX_HELD_PER_PASS);
  const due = (await dueOnly(payable, hold.thresholdOf)).map(({ address, balance }) => ({
    address,
    amountAtomic: balance.balance,
    reason,
  }));
  const held = trackHeldPayouts(await hold.watch.listHeld(), due, (hold.clock ?? Date.now)(), hold.logger);
  await hold.watch.replaceHeld(held);
  return held;
}

/** The payable miners who are due: a miner below its own threshold is not, so it is never held. */
export async function dueOnly(
  payable: readonly PayableBalance[],
  thresholdOf: ((address: string) => Promise<bigint | undefined>) | undefined,
): Promise<PayableBalance[]> {
  const due: PayableBalance[] = [];
  for (const entry of payable) {
    const threshold = await thresholdOf?.(entry.address);
    if (threshold === undefined || entry.balance.balance >= threshold) due.push(entry);
  }
  return due;
}
