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
/** Comfortably above the 2^-19 (≈ 1.9e-6) error bound of the square-root estimate. */
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
 * Variant-2 division step: for the dividend n = (nLo, nHi) and a divisor d with its top bit set
 * (d = … | 0x80000001), writes D = (n div d mod 2^32) + ((n mod d) << 32) as out[o] = low word
 * (the quotient's low 32 bits), out[o+1] = high word (the remainder).
 *
 * Long division in base 2^16 after the first 32 bits: each partial dividend is below 2^48, and
 * its quotient below 2^17, so the double division rounds to the exact floor (the distance of a
 * non-integer quotient from the next integer is at least 1/d > 2^-32, far above the rounding error
 * of about 2^-36).
 */
export function variant2Divide(out: Int32Array, o: number, nLo: number, nHi: number, divisor: number): void {
  const d = divisor >>> 0;
  const lo = nLo >>> 0;
  // d > 2^31, so the top word contributes a quotient bit of 0 or 1, which mod 2^32 drops out.
  let r = nHi >>> 0;
  if (r >= d) r -= d;
  let partial = r * 65536 + (lo >>> 16);
  const qMid = Math.floor(partial / d);
  r = partial - qMid * d;
  partial = r * 65536 + (lo & 0xffff);
  const qLow = Math.floor(partial / d);
  r = partial - qLow * d;
  out[o] = qMid * 65536 + qLow; // < 2^32
  out[o + 1] = r;
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
