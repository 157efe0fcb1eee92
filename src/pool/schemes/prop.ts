import { assembleSplit } from './assemble-split.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from './types.js';
import { assertContribution, assertFeePolicy, assertFinder, assertReward } from './validate-inputs.js';

export interface PropSplitInput {
  readonly reward: bigint;
  /** Difficulty each address submitted during the round that this block ended, every value > 0. */
  readonly roundContributions: ReadonlyMap<string, bigint>;
  readonly finder: string;
  readonly fee: FeePolicy;
  /** Default 'credit-finder'; see EmptyRoundPolicy. */
  readonly emptyRound?: EmptyRoundPolicy;
}

/**
 * Proportional: the miners' part is divided by the difficulty each address submitted in the round.
 * The map's order does not matter (the split is keyed and ordered by address).
 */
export function propSplit(input: PropSplitInput): PaymentSplit {
  const { reward, roundContributions, finder, fee } = input;
  assertReward(reward);
  assertFeePolicy(fee);
  assertFinder(finder);
  let index = 0;
  for (const [address, difficulty] of roundContributions) {
    assertContribution(address, difficulty, index);
    index += 1;
  }
  return assembleSplit({
    reward,
    fee,
    finder,
    weights: roundContributions,
    emptyRound: input.emptyRound ?? 'credit-finder',
  });
}
