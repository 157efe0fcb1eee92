/**
 * The 64-bit integer arithmetic of CryptoNight's main loop, on 32-bit halves so the hot loop needs
 * neither bigint nor allocation. A 64-bit value is a (lo, hi) pair of 32-bit words; inputs may be
 * given as signed or unsigned 32-bit numbers, outputs are written as signed 32-bit words (the
 * Int32Array representation).
 *
 * Every function here is exact; the tests compare them with straightforward bigint versions.
 */

const TWO_POW_32 = 4294967296;
const TWO_POW_33 = 8589934592;
const TWO_POW_64 = 2 ** 64;
const TWO_POW_66 = 2 ** 66;
/** Comfortably above the error bounds (2^-19 and 2^-18.5, ≈ 2.7e-6) of the square-root estimates. */
const SQRT_EDGE = 1e-5;

/**
 * High 32 bits of the 64-bit product of two unsigned 32-bit numbers.
 *
 * The double product a·b is within 2^11 of the true value, and so is the double difference
 * a·b − lo once the exact low word lo is subtracted; that difference is hi·2^32 up to an error
 * of at most 2^12, so dividing by 2^32 and rounding to the nearest integer gives hi exactly.
 */
export function mulHi32(a: number, b: number): number {
  return Math.round(((a >>> 0) * (b >>> 0) - (Math.imul(a, b) >>> 0)) / TWO_POW_32) | 0;
}

/**
 * Full 128-bit product of two 64-bit values (aLo, aHi) × (bLo, bHi).
 * Writes out[o..o+3] = product words from least to most significant, i.e. lo64 = out[o], out[o+1]
 * and hi64 = out[o+2], out[o+3].
 */
export function mul64x64(
  out: Int32Array,
  o: number,
  aLo: number,
  aHi: number,
  bLo: number,
  bHi: number,
): void {
  const ua = aLo >>> 0;
  const ub = aHi >>> 0;
  const va = bLo >>> 0;
  const vb = bHi >>> 0;
  // Four 32×32 partial products (low word by Math.imul, high word as in mulHi32), then schoolbook
  // column sums, which stay below 2^34 and so are exact in doubles.
  const ll = Math.imul(aLo, bLo) >>> 0;
  const llHi = Math.round((ua * va - ll) / TWO_POW_32);
  const lh = Math.imul(aLo, bHi) >>> 0;
  const lhHi = Math.round((ua * vb - lh) / TWO_POW_32);
  const hl = Math.imul(aHi, bLo) >>> 0;
  const hlHi = Math.round((ub * va - hl) / TWO_POW_32);
  const hh = Math.imul(aHi, bHi) >>> 0;
  const hhHi = Math.round((ub * vb - hh) / TWO_POW_32);
  const col1 = llHi + lh + hl;
  const col2 = lhHi + hlHi + hh + Math.floor(col1 / TWO_POW_32);
  out[o] = ll;
  out[o + 1] = col1; // Int32Array stores reduce mod 2^32
  out[o + 2] = col2;
  out[o + 3] = hhHi + Math.floor(col2 / TWO_POW_32);
}

/**
 * Step 4.4 of the main loop (spec §7.2): the new D and R from c = (c0, c1, c2, c3) and the old R.
 *
 *   d = (c0 + 2R) | 0x80000001 (32-bit), n = (c2, c3) = lane c1 as a 64-bit number,
 *   D = (n div d mod 2^32) + ((n mod d) << 32),   R' = ⌊2·√(2^64 + t) − 2^33⌋ with t = (c0, c1) + D mod 2^64.
 *
 * Writes D to out[o] (low word, the quotient) and out[o+1] (high word, the remainder) and returns
 * R' as a signed 32-bit word.
 *
 * Speed: the division and the square root form one chain of dependent double operations that
 * also links each iteration to the next (R' feeds the next divisor), so its latency sets a floor
 * under the whole loop. Everything stays in doubles, nothing branches on the data, and whatever
 * does not need the second quotient is computed beside the chain: on it are only 2 divisions,
 * 2 floors, ~7 multiplications and additions, and the square root.
 *
 * Division: long division in base 2^16 after the first 32 bits. Each partial dividend is below
 * 2^48 and its quotient below 2^17, so the double division rounds to the exact floor (a
 * non-integer quotient is at least 1/d > 2^-32 from the next integer, far above the rounding error
 * of about 2^-36). The quotient q = qMid·2^16 + qLow (qLow < 2^16) may reach 2^33; D keeps it mod
 * 2^32, i.e. qMid mod 2^16.
 *
 * Square root: s = c + D < 2^65 is the sum of (c1 + remainder)·2^32, computed exactly as
 * (c1 + partial)·2^32 − qLow·d·2^32, and c0 + (q mod 2^32); only that sum rounds, by at most 2^11.
 * x4 = 4·(2^64 + (s mod 2^64)), so that √x4 is already the doubled root, rounds by at most 2^14
 * more. The estimate √x4 − 2^33 is then within 2^-18.5 of the real value (the derivative of √y is
 * below 2^-34 there; Math.sqrt adds 2^-20; the subtraction is exact). Its floor is R' unless it lies
 * within SQRT_EDGE of an integer; those rare cases are settled exactly by {@link variant2Sqrt}. The
 * mod cannot go the wrong way unnoticed: rounding is monotonic, so the only mistake is c + D just
 * below 2^64 rounding to s = 2^64, which gives x4 = 2^66 and an estimate of exactly 0.
 */
export function variant2DivideSqrt(
  out: Int32Array,
  o: number,
  c0: number,
  c1: number,
  c2: number,
  c3: number,
  r: number,
): number {
  const d = ((c0 + (r << 1)) | 0x80000001) >>> 0;
  const nLo = c2 >>> 0;
  const partialHigh = (c3 >>> 0) * 65536 + (nLo >>> 16);
  const qMid = Math.floor(partialHigh / d);
  const partial = (partialHigh - qMid * d) * 65536 + (nLo & 0xffff);
  // Beside the chain, while the second division runs:
  const hiBase = ((c1 >>> 0) + partial) * TWO_POW_32;
  const dHigh = d * TWO_POW_32;
  const loBase = (c0 >>> 0) + (qMid - Math.floor(qMid / 65536) * 65536) * 65536;
  const qLow = Math.floor(partial / d);
  const quotient = (qMid * 65536 + qLow) | 0;
  const remainder = (partial - qLow * d) | 0;
  out[o] = quotient;
  out[o + 1] = remainder;

  const s = hiBase - qLow * dHigh + (loBase + qLow);
  const x4 = 4 * s + TWO_POW_66 - Math.floor(s / TWO_POW_64) * TWO_POW_66;
  const estimate = Math.sqrt(x4) - TWO_POW_33;
  const fraction = estimate - Math.floor(estimate);
  // `estimate | 0` truncates the non-negative estimate, i.e. floors it, without a floor on the chain.
  if (fraction > SQRT_EDGE && fraction < 1 - SQRT_EDGE) return estimate | 0;
  return exactRoot(c0, c1, quotient, remainder);
}

/**
 * The rare exact path of {@link variant2DivideSqrt}: R' from t = (c0, c1) + (quotient, remainder)
 * mod 2^64 in 32-bit words. A function of its own so that variant2DivideSqrt stays under V8's
 * 460-byte limit for inlining, which saves a call per main-loop iteration.
 */
function exactRoot(c0: number, c1: number, quotient: number, remainder: number): number {
  const tLo = (c0 + quotient) | 0;
  return variant2Sqrt(tLo, (c1 + remainder + Number(tLo >>> 0 < c0 >>> 0)) | 0) | 0;
}

/**
 * Variant-2 square root: R = ⌊2·√(2^64 + t) − 2^33⌋ for the 64-bit t = (tLo, tHi), an unsigned
 * 32-bit result (it is below 2^33·(√2 − 1) < 2^32).
 *
 * The double estimate 2·√(2^64 + t) − 2^33 is within 2^-19 of the real value: t and 2^64 + t are
 * rounded by at most 2^10 and 2^11 (together < 2^12, which moves the square root by < 2^-21),
 * Math.sqrt adds at most 2^-21, the doubling is exact and so is the subtraction (Sterbenz). So
 * unless the estimate lies within 2^-19 of an integer its floor is already R; otherwise
 * {@link exactVariant2Sqrt} settles it with integer arithmetic.
 */
export function variant2Sqrt(tLo: number, tHi: number): number {
  const estimate = 2 * Math.sqrt(TWO_POW_64 + (tHi >>> 0) * TWO_POW_32 + (tLo >>> 0)) - TWO_POW_33;
  const floor = Math.floor(estimate);
  const fraction = estimate - floor;
  if (fraction > SQRT_EDGE && fraction < 1 - SQRT_EDGE) return floor;
  return exactVariant2Sqrt(tLo, tHi, floor);
}

/** Whether R² + 2^34·R > 4t, i.e. R is too large for the variant-2 square root of t. */
function sqrtTooLarge(r: number, tLo: number, tHi: number): boolean {
  // 4t as (high part < 2^34, low 32 bits); R(R + 2^34) as (high part < 2^35, low 32 bits).
  const fourTHi = (tHi >>> 0) * 4 + ((tLo >>> 0) >>> 30);
  const fourTLo = (tLo << 2) >>> 0;
  const fLo = Math.imul(r, r) >>> 0;
  const fHi = (mulHi32(r, r) >>> 0) + r * 4;
  return fHi > fourTHi || (fHi === fourTHi && fLo > fourTLo);
}

/**
 * The variant-2 square root by its integer definition, starting from a guess at most one off:
 * R is the largest integer with (2^33 + R)² ≤ 4(2^64 + t), i.e. R² + 2^34·R ≤ 4t.
 */
export function exactVariant2Sqrt(tLo: number, tHi: number, guess: number): number {
  let r = Math.max(0, guess);
  while (r > 0 && sqrtTooLarge(r, tLo, tHi)) r--;
  while (!sqrtTooLarge(r + 1, tLo, tHi)) r++;
  return r;
}

// Run the rare exact path of variant2DivideSqrt at load, so that V8 has type feedback for it:
// otherwise the first time a hash needs it (about one hash in three), V8 throws away the optimized
// main loop, which inlines this function, and compiles it again. The input gives D = 0 and
// t = c = 57·2^58, exactly where R' steps to 3·2^30 (an estimate with no fraction, and a result
// above 2^31, as many are). 16 calls, because V8 records feedback only after a function's first
// few calls.
for (let i = 0; i < 16; i++) variant2DivideSqrt(new Int32Array(2), 0, 0, 0xe4000000 | 0, 0, 0, 0);
