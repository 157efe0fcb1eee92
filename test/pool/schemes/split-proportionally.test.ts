import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitProportionally } from '../../../src/pool/schemes/split-proportionally.js';
import { addressArb, schemeErrorCode } from './scheme-test-kit.js';

const weightsArb = fc
  .uniqueArray(fc.tuple(addressArb, fc.bigInt({ min: 0n, max: 10n ** 12n })), {
    minLength: 1,
    maxLength: 7,
    selector: ([address]) => address,
  })
  .filter((entries) => entries.some(([, weight]) => weight > 0n));
const amountArb = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n }));

describe('splitProportionally', () => {
  it('divides small amounts by hand-computed rules', () => {
    // 10 / 3 equal weights: 3 each, 1 left over; equal remainders, so the lowest address gets it.
    expect(
      Object.fromEntries(
        splitProportionally(
          10n,
          new Map([
            ['c', 1n],
            ['b', 1n],
            ['a', 1n],
          ]),
        ),
      ),
    ).toEqual({
      a: 4n,
      b: 3n,
      c: 3n,
    });
    // 100 × 1/3 = 33.33, 100 × 2/3 = 66.67: floors 33 + 66, the unit goes to the larger remainder (b).
    expect(
      Object.fromEntries(
        splitProportionally(
          100n,
          new Map([
            ['a', 1n],
            ['b', 2n],
          ]),
        ),
      ),
    ).toEqual({
      a: 33n,
      b: 67n,
    });
    // Larger remainder beats the lower address.
    expect(
      Object.fromEntries(
        splitProportionally(
          1n,
          new Map([
            ['a', 1n],
            ['z', 2n],
          ]),
        ),
      ),
    ).toEqual({ a: 0n, z: 1n });
    // Ties by code units, not locale: 'Z' (0x5a) sorts before 'a' (0x61).
    expect(
      Object.fromEntries(
        splitProportionally(
          1n,
          new Map([
            ['a', 5n],
            ['Z', 5n],
          ]),
        ),
      ),
    ).toEqual({ Z: 1n, a: 0n });
    // Zero weight never gets anything, zero amount gives zeros.
    expect(
      Object.fromEntries(
        splitProportionally(
          7n,
          new Map([
            ['a', 0n],
            ['b', 3n],
          ]),
        ),
      ),
    ).toEqual({ a: 0n, b: 7n });
    expect(Object.fromEntries(splitProportionally(0n, new Map([['a', 1n]])))).toEqual({ a: 0n });
  });

  it('returns keys in ascending address order', () => {
    const result = splitProportionally(
      5n,
      new Map([
        ['m', 1n],
        ['Z', 1n],
        ['b', 1n],
      ]),
    );
    expect([...result.keys()]).toEqual(['Z', 'b', 'm']);
  });

  it('rejects what it cannot divide', () => {
    expect(schemeErrorCode(() => splitProportionally(-1n, new Map([['a', 1n]])))).toBe('INVALID_WEIGHTS');
    expect(schemeErrorCode(() => splitProportionally(1n, new Map([['a', -1n]])))).toBe('INVALID_WEIGHTS');
    expect(schemeErrorCode(() => splitProportionally(1n, new Map([['a', 0n]])))).toBe('INVALID_WEIGHTS');
    expect(schemeErrorCode(() => splitProportionally(1n, new Map()))).toBe('INVALID_WEIGHTS');
    expect(schemeErrorCode(() => splitProportionally(1 as unknown as bigint, new Map([['a', 1n]])))).toBe(
      'INVALID_WEIGHTS',
    );
    expect(schemeErrorCode(() => splitProportionally(1n, new Map([['a', 1 as unknown as bigint]])))).toBe(
      'INVALID_WEIGHTS',
    );
  });

  it('hands out exactly the amount, each part the floor or ceil of its exact share', () => {
    fc.assert(
      fc.property(amountArb, weightsArb, (amount, entries) => {
        const weights = new Map(entries);
        const total = entries.reduce((sum, [, weight]) => sum + weight, 0n);
        const parts = splitProportionally(amount, weights);
        let sum = 0n;
        for (const [recipient, weight] of entries) {
          const part = parts.get(recipient)!;
          const floor = (amount * weight) / total;
          expect(part === floor || part === floor + 1n).toBe(true);
          if (weight === 0n) expect(part).toBe(0n);
          sum += part;
        }
        expect(parts.size).toBe(entries.length);
        expect(sum).toBe(amount);
      }),
    );
  });

  it('never pays a larger weight less, and does not depend on the map order', () => {
    const withPermutation = weightsArb.chain((entries) =>
      fc.tuple(
        fc.constant(entries),
        fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }),
      ),
    );
    fc.assert(
      fc.property(amountArb, withPermutation, (amount, [entries, permuted]) => {
        const parts = splitProportionally(amount, new Map(entries));
        for (const [a, wa] of entries) {
          for (const [b, wb] of entries) {
            if (wa > wb) expect(parts.get(a)! >= parts.get(b)!).toBe(true);
            if (wa === wb) expect(parts.get(a)! - parts.get(b)! <= 1n).toBe(true);
          }
        }
        expect([...splitProportionally(amount, new Map(permuted))]).toEqual([...parts]);
      }),
    );
  });
});
