import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from './types.js';
import { weightedSplit } from './weighted-split.js';

export interface PropSplitInput {
  readonly reward: bigint;
  /** Difficulty each address submitted during the round that this block ended, every value > 0. */
  readonly roundContributions: ReadonlyMap<string, bigint>;
  readonly finder: string;
  readonly fee: FeePolicy;
  /** payments.emptyRound; the config's default when not given. See EmptyRoundPolicy. */
  readonly emptyRound?: EmptyRoundPolicy;
}

/**
 * Proportional: the miners' part is divided by the difficulty each address submitted in the round.
 * The map's order does not matter (the split is keyed and ordered by address).
 */
export function propSplit(input: PropSplitInput): PaymentSplit {
  const { roundContributions, ...rest } = input;
  return weightedSplit({ ...rest, weights: roundContributions });
}
