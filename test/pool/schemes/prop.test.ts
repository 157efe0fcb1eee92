import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propSplit } from '../../../src/pool/schemes/prop.js';
import {
  addressArb,
  creditsOf,
  difficultyArb,
  expectSound,
  feeArb,
  finderArb,
  noFee,
  rewardArb,
  schemeErrorCode,
} from './scheme-test-kit.js';

const contributionsArb = fc
  .uniqueArray(fc.tuple(addressArb, difficultyArb), { maxLength: 7, selector: ([address]) => address })
  .chain((entries) =>
    fc.tuple(
      fc.constant(entries),
      fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }),
    ),
  );

describe('propSplit', () => {
  it('divides by round difficulty (hand-computed)', () => {
    // reward 10 000, fee 1 % = 100, miners 9 900 over difficulty 1 : 2 : 3 → 1 650 per sixth.
    const contributions = new Map([
      ['A', 1n],
      ['B', 2n],
      ['C', 3n],
    ]);
    const plain = propSplit({
      reward: 10_000n,
      roundContributions: contributions,
      finder: 'C',
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 0 },
    });
    expect(creditsOf(plain)).toEqual({ A: 1_650n, B: 3_300n, C: 4_950n });
    // With a 10 % finder bonus: 990 to C first, 8 910 by sixths of 1 485.
    const bonus = propSplit({
      reward: 10_000n,
      roundContributions: contributions,
      finder: 'C',
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 1_000 },
    });
    expect(creditsOf(bonus)).toEqual({ A: 1_485n, B: 2_970n, C: 4_455n + 990n });
    expect(bonus.finderBonus).toBe(990n);
    expect(bonus.countedDifficulty).toBe(6n);
  });

  it('gives an empty round to the finder, or refuses it when asked to', () => {
    const split = propSplit({ reward: 50n, roundContributions: new Map(), finder: 'F', fee: noFee() });
    expect(creditsOf(split)).toEqual({ F: 50n });
    expect(split.emptyRound).toBe(true);
    expect(
      schemeErrorCode(() =>
        propSplit({
          reward: 50n,
          roundContributions: new Map(),
          finder: 'F',
          fee: noFee(),
          emptyRound: 'reject',
        }),
      ),
    ).toBe('EMPTY_ROUND');
  });

  it('rejects contributions of zero or less', () => {
    const fee = noFee();
    expect(
      schemeErrorCode(() =>
        propSplit({ reward: 5n, roundContributions: new Map([['A', 0n]]), finder: 'A', fee }),
      ),
    ).toBe('INVALID_SHARE');
    expect(
      schemeErrorCode(() =>
        propSplit({ reward: 5n, roundContributions: new Map([['', 1n]]), finder: 'A', fee }),
      ),
    ).toBe('INVALID_SHARE');
    expect(
      schemeErrorCode(() =>
        propSplit({ reward: 0n, roundContributions: new Map([['A', 1n]]), finder: 'A', fee }),
      ),
    ).toBe('INVALID_REWARD');
  });

  it('is exact, non-negative, limited to contributors and the finder, and order-independent', () => {
    fc.assert(
      fc.property(
        contributionsArb,
        rewardArb,
        feeArb,
        finderArb,
        ([entries, permuted], reward, fee, finder) => {
          const split = propSplit({ reward, roundContributions: new Map(entries), finder, fee });
          expectSound(split, reward);
          const contributors = new Set(entries.map(([address]) => address));
          for (const address of split.credits.keys()) {
            const finderPaid = address === finder && (split.finderBonus > 0n || split.emptyRound);
            expect(contributors.has(address) || finderPaid).toBe(true);
          }
          const again = propSplit({ reward, roundContributions: new Map(permuted), finder, fee });
          expect([...again.credits]).toEqual([...split.credits]);
          expect(again).toEqual(split);
        },
      ),
    );
  });
});
