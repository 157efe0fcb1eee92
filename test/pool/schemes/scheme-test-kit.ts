import fc from 'fast-check';
import { expect } from 'vitest';
import { SchemeError, type SchemeErrorCode } from '../../../src/pool/schemes/scheme-error.js';
import type { FeePolicy, PaymentSplit, ShareRecord } from '../../../src/pool/schemes/types.js';

/** A small address pool so that the same miner shows up many times; mixed case to exercise code-unit order. */
export const ADDRESSES = [
  'fireAlpha',
  'fireBravo',
  'fireCharlie',
  'fireDelta',
  'fireecho',
  'fireFox',
  'Zulu',
];

export const addressArb = fc.constantFrom(...ADDRESSES);
export const difficultyArb = fc.bigInt({ min: 1n, max: 10n ** 12n });
export const rewardArb = fc.oneof(
  fc.bigInt({ min: 1n, max: 10n ** 15n }),
  // Rewards smaller than the number of miners, where the remainder rule does all the work.
  fc.bigInt({ min: 1n, max: 12n }),
);
const basisPointsArb = fc.oneof(
  fc.constantFrom(0, 1, 5_000, 9_999, 10_000),
  fc.integer({ min: 0, max: 10_000 }),
);
export const feeArb: fc.Arbitrary<FeePolicy> = fc.record({
  poolFeeBasisPoints: basisPointsArb,
  finderBonusBasisPoints: basisPointsArb,
});
export const shareArb: fc.Arbitrary<ShareRecord> = fc.record({
  address: addressArb,
  difficulty: difficultyArb,
  timestampMs: fc.integer({ min: 0, max: 2 ** 41 }),
});
export const sharesArb = fc.array(shareArb, { maxLength: 60 });
/** The finder is usually a miner with shares, sometimes an address that has none. */
export const finderArb = fc.oneof(addressArb, fc.constant('fireOutsider'));

export function noFee(finderBonusBasisPoints = 0): FeePolicy {
  return { poolFeeBasisPoints: 0, finderBonusBasisPoints };
}

export function share(address: string, difficulty: bigint, timestampMs = 0): ShareRecord {
  return { address, difficulty, timestampMs };
}

export function creditsOf(split: PaymentSplit): Record<string, bigint> {
  return Object.fromEntries(split.credits);
}

/** The invariants every split must keep, whatever the scheme. */
export function expectSound(split: PaymentSplit, reward: bigint): void {
  let sum = 0n;
  for (const amount of split.credits.values()) {
    expect(amount > 0n).toBe(true);
    sum += amount;
  }
  expect(sum).toBe(split.totalCredited);
  expect(split.totalCredited + split.poolFee).toBe(reward);
  expect(split.poolFee >= 0n).toBe(true);
  expect(split.finderBonus >= 0n && split.finderBonus <= split.totalCredited).toBe(true);
  if (split.finderBonus > 0n) expect((split.credits.get(split.finder) ?? 0n) >= split.finderBonus).toBe(true);
  const keys = [...split.credits.keys()];
  expect(keys).toEqual([...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function schemeErrorCode(fn: () => unknown): SchemeErrorCode | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof SchemeError) return error.code;
    throw error;
  }
  return undefined;
}
