import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exactVariant2Sqrt,
  mul64x64,
  mulHi32,
  variant2DivideSqrt,
  variant2Sqrt,
} from '../../../src/pow/reference/variant2-math.js';

// Slow, obviously-correct bigint models of the main-loop arithmetic (spec §7.2 step 4.4/4.5).
const MASK32 = 0xffffffffn;
const MASK64 = (1n << 64n) - 1n;

function join(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

function words(value: bigint, count: number): number[] {
  return Array.from({ length: count }, (_, i) => Number((value >> BigInt(32 * i)) & MASK32) | 0);
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/** ⌊2·√(2^64 + t) − 2^33⌋ = isqrt(4·(2^64 + t)) − 2^33. */
function sqrtModel(t: bigint): bigint {
  return isqrt(4n * ((1n << 64n) + t)) - (1n << 33n);
}

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: MASK64 });
const edgeU32 = fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff);
const anyU32 = fc.oneof(u32, edgeU32);

describe('mulHi32 / mul64x64', () => {
  it('mulHi32 is the high word of the 64-bit product', () => {
    fc.assert(
      fc.property(anyU32, anyU32, (a, b) => {
        expect(mulHi32(a, b) >>> 0).toBe(Number((BigInt(a) * BigInt(b)) >> 32n));
        // Signed inputs (as read from an Int32Array) mean the same bits.
        expect(mulHi32(a | 0, b | 0) >>> 0).toBe(Number((BigInt(a) * BigInt(b)) >> 32n));
      }),
      { numRuns: 5000 },
    );
  });

  it('mul64x64 is the full 128-bit product, least significant word first', () => {
    const u64Words = fc.tuple(anyU32, anyU32);
    fc.assert(
      fc.property(u64Words, u64Words, ([aLo, aHi], [bLo, bHi]) => {
        const out = new Int32Array(6);
        mul64x64(out, 1, aLo | 0, aHi | 0, bLo | 0, bHi | 0);
        expect(Array.from(out.subarray(1, 5))).toEqual(words(join(aLo, aHi) * join(bLo, bHi), 4));
        expect(out[0]).toBe(0);
        expect(out[5]).toBe(0);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('variant2DivideSqrt (step 4.4)', () => {
  /** The bigint model of step 4.4: D from lane c1 and the divisor, then R from c0 + D. */
  const model = (c0: number, c1: number, c2: number, c3: number, r: number) => {
    const d = BigInt(((c0 + (r << 1)) | 0x80000001) >>> 0);
    const n = join(c2, c3);
    const quotient = (n / d) & MASK32;
    const remainder = n % d;
    const t = (join(c0, c1) + (remainder << 32n) + quotient) & MASK64;
    return { quotient, remainder, root: sqrtModel(t) };
  };
  const check = (c0: number, c1: number, c2: number, c3: number, r: number): void => {
    const out = new Int32Array(4);
    const root = variant2DivideSqrt(out, 1, c0 | 0, c1 | 0, c2 | 0, c3 | 0, r | 0);
    const expected = model(c0 | 0, c1 | 0, c2 | 0, c3 | 0, r | 0);
    expect(out[1]! >>> 0).toBe(Number(expected.quotient));
    expect(out[2]! >>> 0).toBe(Number(expected.remainder));
    expect(root >>> 0).toBe(Number(expected.root));
    expect(root).toBe(root | 0); // a signed 32-bit word
    expect(out[0]).toBe(0);
    expect(out[3]).toBe(0);
  };

  it('matches the bigint model of the division and the square root', () => {
    fc.assert(
      fc.property(anyU32, anyU32, anyU32, anyU32, anyU32, (c0, c1, c2, c3, r) => check(c0, c1, c2, c3, r)),
      { numRuns: 20000 },
    );
  });

  it('handles the extreme dividends and divisors', () => {
    for (const [c2, c3] of [
      [0, 0],
      [1, 0],
      [0xffffffff, 0xffffffff],
      [0xfffffffe, 0xffffffff],
      [0xffffffff, 0],
      [0, 0x80000000],
    ] as const) {
      for (const [c0, r] of [
        [0, 0],
        [0xffffffff, 0],
        [0x7ffffffe, 0],
        [0, 0x7fffffff],
      ] as const) {
        check(c0, 0, c2, c3, r);
        check(c0, 0xffffffff, c2, c3, r);
      }
    }
  });

  it('is exact where t = c + D sits at a step of the square root or wraps past 2^64', () => {
    // Pick the divisor input e (d = e | 0x80000001) and n first, which fixes D; then c = t − D for
    // the wanted t, and R so that c0 + 2R gives e again (bit 0 does not matter after the OR).
    const result = fc.bigInt({ min: 0n, max: sqrtModel(MASK64) });
    const near = fc.integer({ min: -2, max: 2 });
    fc.assert(
      fc.property(anyU32, anyU32, anyU32, result, near, (e, c2, c3, root, offset) => {
        const d = BigInt((e | 0x80000001) >>> 0);
        const n = join(c2, c3);
        const dValue = ((n % d) << 32n) + ((n / d) & MASK32);
        // The smallest t with this result (a step), and t = 2^64 − 1 … 2 (c + D wrapping).
        for (const target of [(root * root + (root << 34n) + 3n) / 4n, 0n]) {
          const c = (target + BigInt(offset) - dValue) & MASK64;
          const c0 = Number(c & MASK32);
          const c1 = Number(c >> 32n);
          check(c0, c1, c2, c3, ((e - c0) >>> 1) | 0);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('variant2Sqrt', () => {
  const check = (t: bigint): void => {
    const lo = Number(t & MASK32) | 0;
    const hi = Number(t >> 32n) | 0;
    expect(variant2Sqrt(lo, hi)).toBe(Number(sqrtModel(t)));
  };

  it('equals ⌊2·√(2^64 + t) − 2^33⌋ on random t', () => {
    fc.assert(
      fc.property(u64, (t) => check(t)),
      { numRuns: 5000 },
    );
  });

  it('is exact at the points where the result steps (the double estimate is near an integer there)', () => {
    // The smallest t with result R solves R² + 2^34·R ≤ 4t: t = ⌈(R² + 2^34·R) / 4⌉; t − 1 gives R − 1.
    const result = fc.bigInt({ min: 1n, max: sqrtModel(MASK64) });
    fc.assert(
      fc.property(result, (r) => {
        const t = (r * r + (r << 34n) + 3n) / 4n;
        if (t > MASK64) return;
        check(t);
        check(t - 1n);
        check(t + 1n);
        expect(sqrtModel(t)).toBe(r);
      }),
      { numRuns: 3000 },
    );
  });

  it('covers the ends of the input range', () => {
    for (const t of [0n, 1n, 2n, 3n, 4n, MASK64, MASK64 - 1n, 1n << 63n, (1n << 32n) - 1n]) check(t);
  });

  it('exactVariant2Sqrt recovers from a guess one off either way', () => {
    fc.assert(
      fc.property(u64, fc.constantFrom(-1, 0, 1), (t, offset) => {
        const expected = Number(sqrtModel(t));
        expect(exactVariant2Sqrt(Number(t & MASK32), Number(t >> 32n), expected + offset)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
