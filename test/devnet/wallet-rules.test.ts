import { describe, expect, test } from 'vitest';
import {
  estimateFusion,
  fusionBucketOf,
  maxFusionInputCount,
  pickFusionInputs,
} from '../../src/devnet/wallet/fusion-rules.js';
import { selectInputs } from '../../src/devnet/wallet/input-selection.js';

const outputs = (...amounts: number[]) => amounts.map((amount, id) => ({ id, amount: BigInt(amount) }));

describe("walletd's choice of inputs (WalletGreen::selectTransfers)", () => {
  test('each round takes the newest output of every size, smallest size first, until covered', () => {
    // sizes: 5 digits (ids 0, 3), 7 digits (ids 1, 4), 8 digits (id 2)
    const wallet = outputs(90_000, 6_000_000, 70_000_000, 80_000, 5_000_000);
    expect(selectInputs(wallet, 5_000_000n).chosen.map((o) => o.id)).toEqual([3, 4]);
    expect(selectInputs(wallet, 80_000_000n).chosen.map((o) => o.id)).toEqual([3, 4, 2, 0, 1]);
  });

  test('never spends dust (20000 or less); says how much it found when short', () => {
    const { chosen, totalAtomic } = selectInputs(outputs(20_000, 9_000, 30_000), 100_000n);
    expect(chosen.map((o) => o.id)).toEqual([2]);
    expect(totalAtomic).toBe(30_000n);
  });
});

describe('fusion rules (Currency, WalletGreen)', () => {
  test('a ready output is one digit then zeros, under the threshold, and not dust on a young chain', () => {
    expect(fusionBucketOf(90_000n, 100_000n, 100)).toBe(4);
    expect(fusionBucketOf(100_000n, 100_000n, 100)).toBeUndefined();
    expect(fusionBucketOf(95_000n, 1_000_000n, 100)).toBeUndefined();
    expect(fusionBucketOf(9_000n, 100_000n, 100)).toBeUndefined();
    expect(fusionBucketOf(9_000n, 100_000n, 300_000)).toBe(3);
  });

  test('a fusion of no decoys fits 2139 inputs in 240000 bytes', () => {
    expect(maxFusionInputCount(0)).toBe(2139);
  });

  test('only sizes with 12 ready outputs count, and the inputs come from one of them', () => {
    const wallet = outputs(...Array(11).fill(90_000), ...Array(13).fill(300_000), 7_000_000, 12_345);
    expect(estimateFusion(wallet, 10_000_000n, 100)).toEqual({ fusionReadyCount: 13, totalOutputCount: 26 });
    const picked = pickFusionInputs(wallet, 10_000_000n, 100, 2139);
    expect(picked).toHaveLength(13);
    expect(new Set(picked.map((o) => o.amount))).toEqual(new Set([300_000n]));
    expect(pickFusionInputs(wallet, 10_000_000n, 100, 12)).toHaveLength(12);
    expect(pickFusionInputs(wallet, 300_000n, 100, 2139)).toEqual([]);
  });
});
