import { randomBytes } from 'node:crypto';
import { decodeAddress, encodeAddress } from '../../fuego/address.js';
import type { PayableBalance } from '../../model/payouts/payable-balances.js';
import type { HeldPayout } from '../../model/payouts/payout-watch.js';
import { type PlanOptions, planPayouts } from '../../pool/payouts/payout-planner.js';
import type { IdentifiedBatch } from './batch-sender.js';

/** A miner left out of a pass, with the reason (its `since` is kept by the held list). */
export type HeldEntry = Omit<HeldPayout, 'sinceMs'>;

export interface PassPlan {
  readonly batches: readonly IdentifiedBatch[];
  readonly held: readonly HeldEntry[];
}

/**
 * The batches of one pass and every payable miner left out, with the reason: an earlier batch of
 * the miner still open, an unresolved unknown payment to its address, or the planner's reasons
 * (wallet balance, fee share, batch limit). A miner below its own threshold is simply not due.
 */
export async function planPass(
  payable: readonly PayableBalance[],
  rules: PlanOptions,
  modules: {
    /** Destination address -> the unknown payment (tx hash) that holds it. */
    readonly heldDestinations: ReadonlyMap<string, string>;
    readonly thresholdOf?: ((address: string) => Promise<bigint | undefined>) | undefined;
  },
): Promise<PassPlan> {
  const held: HeldEntry[] = [];
  const miners = [];
  for (const entry of payable) {
    const { address, balance } = entry;
    // One open batch per miner: a miner whose last batch is unresolved waits for it.
    if (balance.inPayout !== 0n) {
      held.push(heldEntry(entry, 'an earlier payout batch of this miner is not settled yet'));
      continue;
    }
    const unknownTx = modules.heldDestinations.get(destinationOf(address));
    if (unknownTx !== undefined) {
      held.push(
        heldEntry(
          entry,
          `the wallet paid this address in ${unknownTx}, a transaction Redis has no batch for: resolve it first`,
        ),
      );
      continue;
    }
    const thresholdAtomic = await modules.thresholdOf?.(address);
    if (thresholdAtomic !== undefined && balance.balance < thresholdAtomic) continue;
    miners.push(
      thresholdAtomic === undefined
        ? { address, balanceAtomic: balance.balance }
        : { address, balanceAtomic: balance.balance, thresholdAtomic },
    );
  }
  const plan = planPayouts(miners, rules);
  const balanceOf = new Map(payable.map((p) => [p.address, p]));
  for (const skipped of plan.skipped) {
    const entry = balanceOf.get(skipped.address);
    if (entry !== undefined) held.push(heldEntry(entry, skipped.reason));
  }
  const batches = plan.batches.map((planned) => ({ ...planned, batchId: randomBytes(16).toString('hex') }));
  return { batches, held };
}

export function heldEntry(entry: PayableBalance, reason: string): HeldEntry {
  return { address: entry.address, amountAtomic: entry.balance.balance, reason };
}

/** The address the wallet pays for a miner account (an integrated address pays its standard one). */
function destinationOf(address: string): string {
  try {
    const decoded = decodeAddress(address);
    return decoded.type === 'integrated' ? encodeAddress(decoded) : address;
  } catch {
    return address;
  }
}
