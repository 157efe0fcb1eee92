import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pplnsSplit } from '../../../src/pool/schemes/pplns.js';
import { pplnsWindowDifficulty } from '../../../src/pool/schemes/pplns-window.js';
import { pplnsWindowWeights } from '../../../src/pool/schemes/pplns-window-weights.js';
import { propSplit } from '../../../src/pool/schemes/prop.js';
import type { ShareRecord } from '../../../src/pool/schemes/types.js';
import { weightedSplit } from '../../../src/pool/schemes/weighted-split.js';
import {
  creditsOf,
  difficultyArb,
  expectSound,
  feeArb,
  finderArb,
  noFee,
  rewardArb,
  schemeErrorCode,
  share,
  sharesArb,
} from './scheme-test-kit.js';

/**
 * An independent statement of the window rule: a share's weight is its difficulty clamped to the
 * room left after every newer share, i.e. clamp(window − prefix, 0, difficulty).
 */
function referenceWeights(sharesNewestFirst: readonly ShareRecord[], window: bigint): Map<string, bigint> {
  const weights = new Map<string, bigint>();
  let prefix = 0n;
  for (const { address, difficulty } of sharesNewestFirst) {
    const room = window - prefix;
    let weight = difficulty;
    if (room < weight) weight = room < 0n ? 0n : room;
    if (weight > 0n) weights.set(address, (weights.get(address) ?? 0n) + weight);
    prefix += difficulty;
  }
  return weights;
}

function totalDifficulty(shares: readonly ShareRecord[]): bigint {
  return shares.reduce((sum, s) => sum + s.difficulty, 0n);
}

/** Windows below, around and above the sum of the shares. */
const windowFor = (shares: readonly ShareRecord[]) =>
  fc.oneof(
    fc.bigInt({ min: 1n, max: 10n ** 13n }),
    fc.bigInt({ min: 1n, max: totalDifficulty(shares) + 1n }),
    fc.constant(totalDifficulty(shares) > 0n ? totalDifficulty(shares) : 1n),
  );

const caseArb = sharesArb.chain((shares) =>
  fc.record({
    reward: rewardArb,
    sharesNewestFirst: fc.constant(shares),
    windowDifficulty: windowFor(shares),
    finder: finderArb,
    fee: feeArb,
  }),
);

describe('pplnsSplit: hand-computed cases', () => {
  it('counts the crossing share partially and ignores shares beyond the window', () => {
    // reward 1000, fee 1 % = 10, miners 990. Window 100: A 30, B 50, then A 40 of which 20 fit; C is outside.
    const split = pplnsSplit({
      reward: 1000n,
      sharesNewestFirst: [share('A', 30n), share('B', 50n), share('A', 40n), share('C', 10n)],
      windowDifficulty: 100n,
      finder: 'A',
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 0 },
    });
    expect(creditsOf(split)).toEqual({ A: 495n, B: 495n });
    expect(split.poolFee).toBe(10n);
    expect(split.totalCredited).toBe(990n);
    expect(split.countedDifficulty).toBe(100n);
    expect(split.emptyRound).toBe(false);
  });

  it('lets a share that fills the window exactly count in full, then stops', () => {
    // reward 1 000 000, fee 2 % = 20 000, miners 980 000, bonus 0.5 % of that = 4 900, rest 975 100.
    // Window 300 = A + B + C exactly; 975 100 / 3 = 325 033 r 1 each, equal remainders: A gets the unit.
    const split = pplnsSplit({
      reward: 1_000_000n,
      sharesNewestFirst: [share('B', 100n), share('A', 100n), share('C', 100n), share('D', 500n)],
      windowDifficulty: 300n,
      finder: 'B',
      fee: { poolFeeBasisPoints: 200, finderBonusBasisPoints: 50 },
    });
    expect(creditsOf(split)).toEqual({ A: 325_034n, B: 325_033n + 4_900n, C: 325_033n });
    expect(split.poolFee).toBe(20_000n);
    expect(split.finderBonus).toBe(4_900n);
    expect(split.totalCredited).toBe(980_000n);
  });

  it('computes the partial weight exactly at real difficulties', () => {
    // Window 2 × 123 456 789 012. A and B leave room for 24; C (1000) counts 24; D is outside.
    // With reward = window and no fee, one atomic unit is paid per unit of counted difficulty.
    const window = pplnsWindowDifficulty(123_456_789_012n, 2);
    expect(window).toBe(246_913_578_024n);
    const split = pplnsSplit({
      reward: window,
      sharesNewestFirst: [
        share('A', 200_000_000_000n),
        share('B', 46_913_578_000n),
        share('C', 1_000n),
        share('D', 999_999_999_999n),
      ],
      windowDifficulty: window,
      finder: 'A',
      fee: noFee(),
    });
    expect(creditsOf(split)).toEqual({ A: 200_000_000_000n, B: 46_913_578_000n, C: 24n });
  });

  it('divides among what there is when the shares do not fill the window', () => {
    const split = pplnsSplit({
      reward: 100n,
      sharesNewestFirst: [share('A', 10n), share('B', 30n)],
      windowDifficulty: 1_000n,
      finder: 'B',
      fee: noFee(),
    });
    expect(creditsOf(split)).toEqual({ A: 25n, B: 75n });
    expect(split.countedDifficulty).toBe(40n);
  });

  it('hands out rewards smaller than the number of miners one unit at a time', () => {
    const shares = [share('E', 5n), share('D', 5n), share('C', 5n), share('B', 5n), share('A', 5n)];
    const split = pplnsSplit({
      reward: 3n,
      sharesNewestFirst: shares,
      windowDifficulty: 25n,
      finder: 'E',
      fee: noFee(),
    });
    // Equal remainders: the three lowest addresses get a unit; nobody gets a zero entry.
    expect(creditsOf(split)).toEqual({ A: 1n, B: 1n, C: 1n });
    const weighted = pplnsSplit({
      reward: 1n,
      sharesNewestFirst: [share('A', 1n), share('B', 3n)],
      windowDifficulty: 4n,
      finder: 'A',
      fee: noFee(),
    });
    expect(creditsOf(weighted)).toEqual({ B: 1n });
  });

  it('applies fee edges: 0 bp, 10000 bp, a half unit rounded to the miners, a 100 % finder bonus', () => {
    const shares = [share('A', 1n), share('B', 1n)];
    const base = { sharesNewestFirst: shares, windowDifficulty: 2n, finder: 'B' };
    const free = pplnsSplit({ ...base, reward: 10n, fee: noFee() });
    expect(free.poolFee).toBe(0n);
    expect(creditsOf(free)).toEqual({ A: 5n, B: 5n });

    const allToPool = pplnsSplit({
      ...base,
      reward: 10n,
      fee: { poolFeeBasisPoints: 10_000, finderBonusBasisPoints: 500 },
    });
    expect(allToPool.poolFee).toBe(10n);
    expect(allToPool.finderBonus).toBe(0n);
    expect(allToPool.credits.size).toBe(0);
    expect(allToPool.totalCredited).toBe(0n);

    // 50 % of 1 unit = 0.5, floored: the unit stays with the miners.
    const half = pplnsSplit({
      ...base,
      reward: 1n,
      fee: { poolFeeBasisPoints: 5_000, finderBonusBasisPoints: 0 },
    });
    expect(half.poolFee).toBe(0n);
    expect(half.totalCredited).toBe(1n);

    const finderTakesAll = pplnsSplit({
      ...base,
      reward: 1_000n,
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 10_000 },
    });
    expect(creditsOf(finderTakesAll)).toEqual({ B: 990n });
    expect(finderTakesAll.finderBonus).toBe(990n);

    // A finder with no share in the window gets only the bonus.
    const outsider = pplnsSplit({ ...base, finder: 'X', reward: 1_000n, fee: noFee(1_000) });
    expect(creditsOf(outsider)).toEqual({ A: 450n, B: 450n, X: 100n });
  });

  it('gives an empty round to the finder, or refuses it when asked to', () => {
    const split = pplnsSplit({
      reward: 1_000n,
      sharesNewestFirst: [],
      windowDifficulty: 10n,
      finder: 'F',
      fee: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 100 },
    });
    expect(creditsOf(split)).toEqual({ F: 990n });
    expect(split.finderBonus).toBe(9n);
    expect(split.emptyRound).toBe(true);
    expect(split.countedDifficulty).toBe(0n);
    expect(
      schemeErrorCode(() =>
        pplnsSplit({
          reward: 1n,
          sharesNewestFirst: [],
          windowDifficulty: 10n,
          finder: 'F',
          fee: noFee(),
          emptyRound: 'reject',
        }),
      ),
    ).toBe('EMPTY_ROUND');
  });

  it('never reads past the window', () => {
    function* history(): Generator<ShareRecord> {
      yield share('A', 6n);
      yield share('B', 4n);
      throw new Error('read beyond the window');
    }
    const split = pplnsSplit({
      reward: 10n,
      sharesNewestFirst: history(),
      windowDifficulty: 10n,
      finder: 'A',
      fee: noFee(),
    });
    expect(creditsOf(split)).toEqual({ A: 6n, B: 4n });
    // A corrupt share beyond the window is not looked at either.
    const beyond = [share('A', 10n), share('B', 0n)];
    expect(
      pplnsSplit({ reward: 10n, sharesNewestFirst: beyond, windowDifficulty: 10n, finder: 'A', fee: noFee() })
        .totalCredited,
    ).toBe(10n);
  });

  it('rejects invalid input with typed codes', () => {
    const ok = {
      reward: 10n,
      sharesNewestFirst: [share('A', 1n)],
      windowDifficulty: 10n,
      finder: 'A',
      fee: noFee(),
    };
    expect(schemeErrorCode(() => pplnsSplit(ok))).toBeUndefined();
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, reward: 0n }))).toBe('INVALID_REWARD');
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, reward: -5n }))).toBe('INVALID_REWARD');
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, reward: 1n << 64n }))).toBe('INVALID_REWARD');
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, reward: 10 as unknown as bigint }))).toBe(
      'INVALID_REWARD',
    );
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, windowDifficulty: 0n }))).toBe('INVALID_WINDOW');
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, finder: '' }))).toBe('INVALID_FINDER');
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, sharesNewestFirst: [share('A', 0n)] }))).toBe(
      'INVALID_SHARE',
    );
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, sharesNewestFirst: [share('A', -3n)] }))).toBe(
      'INVALID_SHARE',
    );
    expect(schemeErrorCode(() => pplnsSplit({ ...ok, sharesNewestFirst: [share('', 3n)] }))).toBe(
      'INVALID_SHARE',
    );
    expect(
      schemeErrorCode(() => pplnsSplit({ ...ok, sharesNewestFirst: [share('A', 3 as unknown as bigint)] })),
    ).toBe('INVALID_SHARE');
    for (const bad of [-1, 10_001, 1.5, Number.NaN]) {
      expect(
        schemeErrorCode(() =>
          pplnsSplit({ ...ok, fee: { poolFeeBasisPoints: bad, finderBonusBasisPoints: 0 } }),
        ),
      ).toBe('INVALID_FEE');
      expect(
        schemeErrorCode(() =>
          pplnsSplit({ ...ok, fee: { poolFeeBasisPoints: 0, finderBonusBasisPoints: bad } }),
        ),
      ).toBe('INVALID_FEE');
    }
    expect(
      schemeErrorCode(() =>
        pplnsSplit({ ...ok, fee: { poolFeeBasisPoints: 0, finderBonusBasisPoints: 0, feeAddress: '' } }),
      ),
    ).toBe('INVALID_FEE');
  });
});

describe('pplnsSplit: properties', () => {
  it('equals the unlocker’s path: weights fixed at find time (pplnsWindowWeights), split later by weight', () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const fixed = pplnsWindowWeights(input.sharesNewestFirst, input.windowDifficulty);
        expect(fixed.weights).toEqual(referenceWeights(input.sharesNewestFirst, input.windowDifficulty));
        expect(fixed.countedDifficulty).toBe([...fixed.weights.values()].reduce((a, b) => a + b, 0n));
        const later = weightedSplit({
          reward: input.reward,
          weights: fixed.weights,
          finder: input.finder,
          fee: input.fee,
        });
        expect(later).toEqual(pplnsSplit(input));
      }),
    );
  });

  it('credits exactly reward − fee, nothing negative, only counted miners and the finder', () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const split = pplnsSplit(input);
        expectSound(split, input.reward);
        const counted = referenceWeights(input.sharesNewestFirst, input.windowDifficulty);
        for (const address of split.credits.keys()) {
          const finderPaid = address === input.finder && (split.finderBonus > 0n || split.emptyRound);
          expect(counted.has(address) || finderPaid).toBe(true);
        }
      }),
    );
  });

  it('pays each miner its exact proportional share to within one atomic unit', () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        const split = pplnsSplit(input);
        const weights = referenceWeights(input.sharesNewestFirst, input.windowDifficulty);
        const total = [...weights.values()].reduce((a, b) => a + b, 0n);
        expect(split.countedDifficulty).toBe(total);
        if (total === 0n) return;
        const rest = split.totalCredited - split.finderBonus;
        for (const [address, weight] of weights) {
          const credit =
            (split.credits.get(address) ?? 0n) - (address === input.finder ? split.finderBonus : 0n);
          const error = credit * total - rest * weight;
          expect(error > -total && error < total).toBe(true);
        }
      }),
    );
  });

  it('is deterministic and blind to shares beyond a full window', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.array(
          fc.record({
            address: fc.string({ minLength: 1 }),
            difficulty: difficultyArb,
            timestampMs: fc.nat(),
          }),
        ),
        (input, older) => {
          const split = pplnsSplit(input);
          expect([...pplnsSplit(input).credits]).toEqual([...split.credits]);
          if (totalDifficulty(input.sharesNewestFirst) >= input.windowDifficulty) {
            const longer = pplnsSplit({
              ...input,
              sharesNewestFirst: [...input.sharesNewestFirst, ...older],
            });
            expect(longer).toEqual(split);
          }
        },
      ),
    );
  });

  it('equals PROP over the same shares when the window holds them all', () => {
    fc.assert(
      fc.property(sharesArb, rewardArb, feeArb, finderArb, (shares, reward, fee, finder) => {
        const contributions = new Map<string, bigint>();
        for (const s of shares)
          contributions.set(s.address, (contributions.get(s.address) ?? 0n) + s.difficulty);
        const window = totalDifficulty(shares) + 1n;
        const pplns = pplnsSplit({
          reward,
          sharesNewestFirst: shares,
          windowDifficulty: window,
          finder,
          fee,
        });
        const prop = propSplit({ reward, roundContributions: contributions, finder, fee });
        expect(pplns).toEqual(prop);
      }),
    );
  });
});

describe('pplnsWindowDifficulty', () => {
  it('multiplies exactly, to a thousandth of the factor', () => {
    expect(pplnsWindowDifficulty(1_000n, 2)).toBe(2_000n);
    expect(pplnsWindowDifficulty(1_000n, 1.5)).toBe(1_500n);
    expect(pplnsWindowDifficulty(3n, 0.5)).toBe(1n);
    expect(pplnsWindowDifficulty(1n, 0.001)).toBe(1n);
    expect(pplnsWindowDifficulty(2n ** 64n, 2)).toBe(2n ** 65n);
  });

  it('rejects windows it cannot make', () => {
    expect(schemeErrorCode(() => pplnsWindowDifficulty(0n, 2))).toBe('INVALID_WINDOW');
    expect(schemeErrorCode(() => pplnsWindowDifficulty(-1n, 2))).toBe('INVALID_WINDOW');
    expect(schemeErrorCode(() => pplnsWindowDifficulty(10n, 0))).toBe('INVALID_WINDOW');
    expect(schemeErrorCode(() => pplnsWindowDifficulty(10n, -2))).toBe('INVALID_WINDOW');
    expect(schemeErrorCode(() => pplnsWindowDifficulty(10n, Number.POSITIVE_INFINITY))).toBe(
      'INVALID_WINDOW',
    );
    expect(schemeErrorCode(() => pplnsWindowDifficulty(10n, Number.NaN))).toBe('INVALID_WINDOW');
  });
});
