import {
  ED25519_D as D,
  fieldInvert as invert,
  fieldMod as mod,
  ED25519_P as P,
  fieldPow as powMod,
} from './ed25519-field.js';

/**
 * Points of the ed25519 curve −x² + y² = 1 + d·x²·y² with plain bigints: decoding as the daemon
 * does, encoding, addition and scalar multiplication. Enough for the address point check, the
 * devnet's key generation and checking a wallet's message signature (a few ms each). Not
 * constant-time: it never handles a secret of the pool.
 */

/** Extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x·y = T/Z. */
export type Point = readonly [bigint, bigint, bigint, bigint];

export const IDENTITY: Point = [0n, 1n, 1n, 0n];

/** x of the point with this y and sign of x (x odd = 1), or undefined when there is none. */
function recoverX(y: bigint, sign: bigint): bigint | undefined {
  const xSquared = mod((y * y - 1n) * invert(mod(D * y * y + 1n)));
  if (xSquared === 0n) return sign === 0n ? 0n : undefined;
  // p ≡ 5 (mod 8): a candidate root is xx^((p+3)/8); if its square is −xx, multiply by √−1.
  let x = powMod(xSquared, (P + 3n) / 8n);
  if (mod(x * x - xSquared) !== 0n) x = mod(x * powMod(2n, (P - 1n) / 4n));
  if (mod(x * x - xSquared) !== 0n) return undefined;
  return (x & 1n) === sign ? x : mod(-x);
}

/** The standard base point G (y = 4/5, x even). */
export const BASE_POINT: Point = (() => {
  const y = mod(4n * invert(5n));
  const x = recoverX(y, 0n)!;
  return [x, y, 1n, mod(x * y)];
})();

/**
 * The point of 32 bytes, accepting exactly what the daemon's `ge_frombytes_vartime` accepts
 * (curve membership only, no subgroup check), or undefined.
 *
 * Layout: bytes 0..31 are y little-endian with bit 255 (byte 31, top bit) being the sign of x.
 * Rejected like the daemon does: y ≥ p (non-canonical), no x with x² = (y² − 1)/(d·y² + 1), and
 * x = 0 with the sign bit set. d·y² + 1 is never 0 because d is not a square mod p.
 */
export function decodePoint(bytes: Uint8Array): Point | undefined {
  if (bytes.length !== 32) return undefined;
  let y = 0n;
  for (let index = 31; index >= 0; index--) y = (y << 8n) | BigInt(bytes[index]!);
  const sign = y >> 255n;
  y &= (1n << 255n) - 1n;
  if (y >= P) return undefined;
  const x = recoverX(y, sign);
  return x === undefined ? undefined : [x, y, 1n, mod(x * y)];
}

/** Whether 32 bytes are a point encoding the daemon accepts (see decodePoint). */
export function isValidEd25519Point(bytes: Uint8Array): boolean {
  return decodePoint(bytes) !== undefined;
}

/** The canonical 32-byte encoding (`ge_tobytes`): y < p little-endian, sign of x in bit 255. */
export function encodePoint(point: Point): Uint8Array {
  const zInverse = invert(point[2]);
  const x = mod(point[0] * zInverse);
  let value = mod(point[1] * zInverse) | ((x & 1n) << 255n);
  const out = new Uint8Array(32);
  for (let index = 0; index < 32; index++) {
    out[index] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

/** p + q: "add-2008-hwcd-3", complete on this curve (any two points, equal ones included). */
export function addPoints(p: Point, q: Point): Point {
  const a = mod((p[1] - p[0]) * (q[1] - q[0]));
  const b = mod((p[1] + p[0]) * (q[1] + q[0]));
  const c = mod(2n * p[3] * q[3] * D);
  const d = mod(2n * p[2] * q[2]);
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

/** 2p: "dbl-2008-hwcd" with a = −1 (fewer multiplications than addPoints(p, p)). */
export function doublePoint(p: Point): Point {
  const a = mod(p[0] * p[0]);
  const b = mod(p[1] * p[1]);
  const c = mod(2n * p[2] * p[2]);
  const h = a + b;
  const e = h - mod((p[0] + p[1]) * (p[0] + p[1]));
  const g = a - b;
  const f = c + g;
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

/**
 * a·A + b·B by one double-and-add pass over both scalars (Straus), for `check_signature`'s
 * c·P + r·G (`ge_double_scalarmult_base_vartime`). The scalars are non-negative integers used as
 * they are, never reduced: with a point outside the prime-order subgroup, reducing would change
 * the result.
 */
export function multiplyAndAdd(a: bigint, pointA: Point, b: bigint, pointB: Point): Point {
  let result = IDENTITY;
  const bits = Math.max(a.toString(2).length, b.toString(2).length);
  for (let bit = bits - 1; bit >= 0; bit--) {
    result = doublePoint(result);
    if ((a >> BigInt(bit)) & 1n) result = addPoints(result, pointA);
    if ((b >> BigInt(bit)) & 1n) result = addPoints(result, pointB);
  }
  return result;
}

/** scalar · point (scalar ≥ 0, used as it is). */
export function multiplyPoint(scalar: bigint, point: Point): Point {
  return multiplyAndAdd(scalar, point, 0n, IDENTITY);
}
