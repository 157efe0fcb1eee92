import {
  ED25519_D as D,
  fieldInvert as invert,
  fieldMod as mod,
  ED25519_P as P,
  fieldPow as powMod,
} from './ed25519-field.js';

/**
 * Whether 32 bytes are a point encoding the daemon accepts, i.e. what `check_key` /
 * `ge_frombytes_vartime` accept (curve membership only, no subgroup check).
 *
 * Layout: bytes 0..31 are y little-endian with bit 255 (byte 31, top bit) being the sign of x.
 * Rejected like the daemon does: y ≥ p (non-canonical), no x with x² = (y² − 1)/(d·y² + 1), and
 * x = 0 with the sign bit set. d·y² + 1 is never 0 because d is not a square mod p.
 */
export function isValidEd25519Point(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  let y = 0n;
  for (let index = 31; index >= 0; index--) y = (y << 8n) | BigInt(bytes[index]!);
  const signBit = y >> 255n;
  y &= (1n << 255n) - 1n;
  if (y >= P) return false;
  const ySquared = (y * y) % P;
  const xSquared = mod((ySquared - 1n) * invert(mod(D * ySquared + 1n)));
  if (xSquared === 0n) return signBit === 0n;
  // Euler's criterion: a nonzero value is a square iff value^((p−1)/2) = 1.
  return powMod(xSquared, (P - 1n) / 2n) === 1n;
}
