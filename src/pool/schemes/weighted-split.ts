import { assembleSplit } from './assemble-split.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from './types.js';
import { assertContribution, assertFeePolicy, assertFinder, assertReward } from './validate-inputs.js';

export interface WeightedSplitInput {
  readonly reward: bigint;
  /** Counted difficulty per address, every value > 0 (empty: an empty round). */
  readonly weights: ReadonlyMap<string, bigint>;
  readonly finder: string;
  readonly fee: FeePolicy;
  /** payments.emptyRound; the config's default when not given. See EmptyRoundPolicy. */
  readonly emptyRound?: EmptyRoundPolicy;
}

/**
 * A block's split by weights fixed earlier: PROP's closed round, or a PPLNS window fixed when the
 * block was found (`pplnsWindowWeights`). Validates the input, then `assembleSplit`; the map's
 * order does not matter (the split is keyed and ordered by address).
 */
export function weightedSplit(input: WeightedSplitInput): PaymentSplit {
  const { reward, weights, finder, fee } = input;
  assertReward(reward);
  assertFeePolicy(fee);
  assertFinder(finder);
  let index = 0;
  for (const [address, weight] of weights) {
    assertContribution(address, weight, index);
    index += 1;
  }
  return assembleSplit({ reward, fee, finder, weights, emptyRound: input.emptyRound });
}
