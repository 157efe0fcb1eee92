import type { Logger } from '../../log/logger.js';
import type { HeldPayout } from '../../pool/payouts/payout-watch.js';

/**
 * The held list of this pass, each miner keeping its `sinceMs` while its reason stays the same,
 * and one warn line per miner newly held or held for another reason (an info line when released):
 * a held payout is never silent, and an unchanged one is not repeated every pass.
 */
export function trackHeldPayouts(
  previous: readonly HeldPayout[],
  current: ReadonlyArray<Omit<HeldPayout, 'sinceMs'>>,
  nowMs: number,
  logger: Logger,
): HeldPayout[] {
  const before = new Map(previous.map((h) => [h.address, h]));
  const held: HeldPayout[] = [];
  for (const entry of current) {
    const old = before.get(entry.address);
    before.delete(entry.address);
    if (old !== undefined && old.reason === entry.reason) {
      held.push({ ...entry, sinceMs: old.sinceMs });
      continue;
    }
    held.push({ ...entry, sinceMs: nowMs });
    logger.warn(
      { address: entry.address, amount: entry.amountAtomic.toString(), reason: entry.reason },
      'payout held',
    );
  }
  for (const released of before.values()) {
    logger.info({ address: released.address, reason: released.reason }, 'payout no longer held');
  }
  return held;
}
