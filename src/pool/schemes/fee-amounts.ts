import type { FeePolicy } from './types.js';

export interface FeeAmounts {
  readonly poolFee: bigint;
  readonly finderBonus: bigint;
  /** reward − poolFee − finderBonus: what is divided among the miners by weight. */
  readonly minersRemainder: bigint;
}

const BASIS_POINTS_PER_WHOLE = 10_000n;

/**
 * The pool fee is floor(reward × fee bp / 10000); the finder bonus is floor(miners' part × bonus bp /
 * 10000) taken from what is left. Rounding down both times leaves any odd unit with the miners, and
 * the three parts always add up to the reward. Expects a validated reward and policy.
 */
export function feeAmounts(reward: bigint, fee: FeePolicy): FeeAmounts {
  const poolFee = (reward * BigInt(fee.poolFeeBasisPoints)) / BASIS_POINTS_PER_WHOLE;
  const minersPart = reward - poolFee;
  const finderBonus = (minersPart * BigInt(fee.finderBonusBasisPoints)) / BASIS_POINTS_PER_WHOLE;
  return { poolFee, finderBonus, minersRemainder: minersPart - finderBonus };
}
