import { DEFAULT_EMPTY_ROUND_POLICY } from '../../config/payments-schema.js';
import { feeAmounts } from './fee-amounts.js';
import { SchemeError } from './scheme-error.js';
import { splitProportionally } from './split-proportionally.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from './types.js';

export interface AssembleSplitInput {
  readonly reward: bigint;
  readonly fee: FeePolicy;
  readonly finder: string;
  /** Counted difficulty per address, every weight > 0 (an empty map means an empty round). */
  readonly weights: ReadonlyMap<string, bigint>;
  /** payments.emptyRound; the config's default when not given. */
  readonly emptyRound: EmptyRoundPolicy | undefined;
}

/**
 * The part PPLNS and PROP share once each has decided who counts for how much: take the pool fee,
 * pay the finder bonus, divide the rest by weight, drop zero credits, order the keys by address.
 * Expects validated inputs.
 */
export function assembleSplit(input: AssembleSplitInput): PaymentSplit {
  const { reward, fee, finder, weights } = input;
  const { poolFee, finderBonus, minersRemainder } = feeAmounts(reward, fee);

  let parts: Map<string, bigint>;
  let countedDifficulty = 0n;
  const emptyRound = weights.size === 0;
  if (emptyRound) {
    if ((input.emptyRound ?? DEFAULT_EMPTY_ROUND_POLICY) === 'reject') {
      throw new SchemeError('EMPTY_ROUND', 'no share counts towards this block', { finder });
    }
    parts = new Map([[finder, minersRemainder]]);
  } else {
    for (const weight of weights.values()) countedDifficulty += weight;
    parts = splitProportionally(minersRemainder, weights);
  }
  if (finderBonus > 0n) parts.set(finder, (parts.get(finder) ?? 0n) + finderBonus);

  const credits = new Map<string, bigint>();
  let totalCredited = 0n;
  for (const address of [...parts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const amount = parts.get(address)!;
    if (amount === 0n) continue;
    credits.set(address, amount);
    totalCredited += amount;
  }
  return { credits, poolFee, finderBonus, finder, totalCredited, countedDifficulty, emptyRound };
}
