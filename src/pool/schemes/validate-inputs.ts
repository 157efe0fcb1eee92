import { MAX_AMOUNT_ATOMIC } from '../../fuego/money.js';
import { SchemeError } from './scheme-error.js';
import type { FeePolicy } from './types.js';

const BASIS_POINTS_MAX = 10_000;

/** A block reward: a bigint in 1..2^64−1 atomic units. */
export function assertReward(reward: unknown): asserts reward is bigint {
  if (typeof reward !== 'bigint' || reward <= 0n || reward > MAX_AMOUNT_ATOMIC) {
    throw new SchemeError('INVALID_REWARD', 'reward must be a bigint in 1..2^64-1 atomic units', {
      reward: String(reward),
    });
  }
}

function isBasisPoints(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= BASIS_POINTS_MAX;
}

/** Whole basis points in 0..10000 for both the fee and the finder bonus; a fee address, if any, non-empty. */
export function assertFeePolicy(fee: FeePolicy): void {
  if (typeof fee !== 'object' || fee === null) {
    throw new SchemeError('INVALID_FEE', 'fee policy missing');
  }
  if (!isBasisPoints(fee.poolFeeBasisPoints)) {
    throw new SchemeError('INVALID_FEE', 'poolFeeBasisPoints must be an integer in 0..10000', {
      poolFeeBasisPoints: fee.poolFeeBasisPoints,
    });
  }
  if (!isBasisPoints(fee.finderBonusBasisPoints)) {
    throw new SchemeError('INVALID_FEE', 'finderBonusBasisPoints must be an integer in 0..10000', {
      finderBonusBasisPoints: fee.finderBonusBasisPoints,
    });
  }
  if (fee.feeAddress !== undefined && (typeof fee.feeAddress !== 'string' || fee.feeAddress === '')) {
    throw new SchemeError('INVALID_FEE', 'feeAddress, when given, must be a non-empty string');
  }
}

export function assertFinder(finder: unknown): asserts finder is string {
  if (typeof finder !== 'string' || finder === '') {
    throw new SchemeError('INVALID_FINDER', 'finder must be a non-empty address string');
  }
}

/** A share's or a round contribution's address and difficulty; `index` locates it in the input. */
export function assertContribution(address: unknown, difficulty: unknown, index: number): void {
  if (typeof address !== 'string' || address === '') {
    throw new SchemeError('INVALID_SHARE', 'share address must be a non-empty string', { index });
  }
  if (typeof difficulty !== 'bigint' || difficulty <= 0n) {
    throw new SchemeError('INVALID_SHARE', 'share difficulty must be a bigint > 0', {
      index,
      address,
      difficulty: String(difficulty),
    });
  }
}
