import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeSplit,
  isPaymentSchemeName,
  orphanedRoundRule,
  PAYMENT_SCHEME_NAMES,
  type PaymentSchemeName,
  pplnsSplit,
  propSplit,
  SCHEME_ERROR_CODES,
  type SchemeErrorCode,
  type SplitInput,
  soloSplit,
  splitProportionally,
} from '../../../src/pool/schemes/index.js';
import {
  expectSound,
  feeArb,
  finderArb,
  noFee,
  rewardArb,
  schemeErrorCode,
  share,
  sharesArb,
} from './scheme-test-kit.js';

describe('computeSplit', () => {
  it('dispatches to the named scheme', () => {
    const fee = { poolFeeBasisPoints: 100, finderBonusBasisPoints: 50 };
    const shares = [share('A', 3n), share('B', 1n)];
    expect(
      computeSplit({
        scheme: 'pplns',
        reward: 999n,
        sharesNewestFirst: shares,
        windowDifficulty: 4n,
        finder: 'B',
        fee,
      }),
    ).toEqual(
      pplnsSplit({ reward: 999n, sharesNewestFirst: shares, windowDifficulty: 4n, finder: 'B', fee }),
    );
    const roundContributions = new Map([['A', 3n]]);
    expect(computeSplit({ scheme: 'prop', reward: 999n, roundContributions, finder: 'A', fee })).toEqual(
      propSplit({ reward: 999n, roundContributions, finder: 'A', fee }),
    );
    expect(computeSplit({ scheme: 'solo', reward: 999n, finder: 'S', fee })).toEqual(
      soloSplit({ reward: 999n, finder: 'S', fee }),
    );
  });

  it('refuses an unknown scheme', () => {
    const input = { scheme: 'pps', reward: 1n, finder: 'A', fee: noFee() } as unknown as SplitInput;
    expect(schemeErrorCode(() => computeSplit(input))).toBe('UNKNOWN_SCHEME');
  });

  it('conserves reward = credits + fee for every scheme', () => {
    const inputArb: fc.Arbitrary<SplitInput> = fc.oneof(
      fc.record({
        scheme: fc.constant('pplns' as const),
        reward: rewardArb,
        sharesNewestFirst: sharesArb,
        windowDifficulty: fc.bigInt({ min: 1n, max: 10n ** 13n }),
        finder: finderArb,
        fee: feeArb,
      }),
      fc.record({
        scheme: fc.constant('prop' as const),
        reward: rewardArb,
        roundContributions: sharesArb.map((shares) => {
          const map = new Map<string, bigint>();
          for (const s of shares) map.set(s.address, (map.get(s.address) ?? 0n) + s.difficulty);
          return map;
        }),
        finder: finderArb,
        fee: feeArb,
      }),
      fc.record({ scheme: fc.constant('solo' as const), reward: rewardArb, finder: finderArb, fee: feeArb }),
    );
    fc.assert(
      fc.property(inputArb, (input) => {
        expectSound(computeSplit(input), input.reward);
      }),
    );
  });
});

describe('scheme names and orphaned rounds', () => {
  it('knows exactly pplns, prop and solo', () => {
    expect(PAYMENT_SCHEME_NAMES).toEqual(['pplns', 'prop', 'solo']);
    expect(isPaymentSchemeName('prop')).toBe(true);
    expect(isPaymentSchemeName('pps')).toBe(false);
    expect(isPaymentSchemeName(1)).toBe(false);
  });

  it('never credits an orphan, and says what happens to its shares', () => {
    expect(orphanedRoundRule('pplns').roundShares).toBe('stay-in-window');
    expect(orphanedRoundRule('prop').roundShares).toBe('merge-into-current-round');
    expect(orphanedRoundRule('solo').roundShares).toBe('none');
    for (const scheme of PAYMENT_SCHEME_NAMES) {
      const rule = orphanedRoundRule(scheme);
      expect(rule.scheme).toBe(scheme);
      expect(rule.creditOrphanedBlock).toBe(false);
      expect(rule.reason.length).toBeGreaterThan(0);
    }
    expect(schemeErrorCode(() => orphanedRoundRule('toString' as PaymentSchemeName))).toBe('UNKNOWN_SCHEME');
  });
});

describe('error catalogue', () => {
  it('every listed code is thrown by some input, and nothing else is', () => {
    const fee = noFee();
    const thrown = new Set<SchemeErrorCode | undefined>([
      schemeErrorCode(() => soloSplit({ reward: 0n, finder: 'A', fee })),
      schemeErrorCode(() => soloSplit({ reward: 1n, finder: 'A', fee: { ...fee, poolFeeBasisPoints: -1 } })),
      schemeErrorCode(() => soloSplit({ reward: 1n, finder: '', fee })),
      schemeErrorCode(() =>
        propSplit({ reward: 1n, roundContributions: new Map([['A', 0n]]), finder: 'A', fee }),
      ),
      schemeErrorCode(() =>
        pplnsSplit({ reward: 1n, sharesNewestFirst: [], windowDifficulty: 0n, finder: 'A', fee }),
      ),
      schemeErrorCode(() => splitProportionally(1n, new Map())),
      schemeErrorCode(() =>
        propSplit({ reward: 1n, roundContributions: new Map(), finder: 'A', fee, emptyRound: 'reject' }),
      ),
      schemeErrorCode(() => orphanedRoundRule('pps' as PaymentSchemeName)),
    ]);
    expect([...thrown].sort()).toEqual([...SCHEME_ERROR_CODES].sort());
  });
});
