import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { soloSplit } from '../../../src/pool/schemes/solo.js';
import { creditsOf, expectSound, feeArb, rewardArb, schemeErrorCode } from './scheme-test-kit.js';

describe('soloSplit', () => {
  it('pays the finder everything but the fee (hand-computed)', () => {
    // 100 XFG, fee 0.5 % = 0.5 XFG; the finder bonus is moot and reported as 0.
    const split = soloSplit({
      reward: 1_000_000_000n,
      finder: 'S',
      fee: { poolFeeBasisPoints: 50, finderBonusBasisPoints: 2_500 },
    });
    expect(creditsOf(split)).toEqual({ S: 995_000_000n });
    expect(split.poolFee).toBe(5_000_000n);
    expect(split.finderBonus).toBe(0n);
    expect(split.emptyRound).toBe(false);
  });

  it('handles fee edges', () => {
    const all = soloSplit({
      reward: 7n,
      finder: 'S',
      fee: { poolFeeBasisPoints: 10_000, finderBonusBasisPoints: 0 },
    });
    expect(all.credits.size).toBe(0);
    expect(all.poolFee).toBe(7n);
    const none = soloSplit({
      reward: 7n,
      finder: 'S',
      fee: { poolFeeBasisPoints: 0, finderBonusBasisPoints: 0 },
    });
    expect(creditsOf(none)).toEqual({ S: 7n });
  });

  it('rejects invalid input', () => {
    const fee = { poolFeeBasisPoints: 0, finderBonusBasisPoints: 0 };
    expect(schemeErrorCode(() => soloSplit({ reward: 0n, finder: 'S', fee }))).toBe('INVALID_REWARD');
    expect(schemeErrorCode(() => soloSplit({ reward: 1n, finder: '', fee }))).toBe('INVALID_FINDER');
    expect(
      schemeErrorCode(() =>
        soloSplit({ reward: 1n, finder: 'S', fee: { ...fee, poolFeeBasisPoints: 10_001 } }),
      ),
    ).toBe('INVALID_FEE');
  });

  it('conserves every unit', () => {
    fc.assert(
      fc.property(rewardArb, feeArb, (reward, fee) => {
        const split = soloSplit({ reward, finder: 'S', fee });
        expectSound(split, reward);
        expect([...split.credits.keys()].every((address) => address === 'S')).toBe(true);
      }),
    );
  });
});
