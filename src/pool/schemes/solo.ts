import { feeAmounts } from './fee-amounts.js';
import type { FeePolicy, PaymentSplit } from './types.js';
import { assertFeePolicy, assertFinder, assertReward } from './validate-inputs.js';

export interface SoloSplitInput {
  readonly reward: bigint;
  /** The solo miner whose share solved the block. */
  readonly finder: string;
  /** Usually the pool's solo fee policy; its finder bonus is ignored (the finder gets everything anyway). */
  readonly fee: FeePolicy;
}

/** Solo: the reward minus the pool fee goes to the finder; `finderBonus` is reported as 0n. */
export function soloSplit(input: SoloSplitInput): PaymentSplit {
  const { reward, finder, fee } = input;
  assertReward(reward);
  assertFeePolicy(fee);
  assertFinder(finder);
  const { poolFee } = feeAmounts(reward, { ...fee, finderBonusBasisPoints: 0 });
  const totalCredited = reward - poolFee;
  const credits = new Map<string, bigint>(totalCredited > 0n ? [[finder, totalCredited]] : []);
  return {
    credits,
    poolFee,
    finderBonus: 0n,
    finder,
    totalCredited,
    countedDifficulty: 0n,
    emptyRound: false,
  };
}
