/**
 * Arithmetic in the field of Curve25519 / ed25519 (p = 2^255 − 19) with plain bigints: enough for
 * the point check on addresses and for the devnet's key generation. Not constant-time: it never
 * touches a secret of the pool (the devnet's keys are simulation keys).
 */

/** Field prime p = 2^255 − 19. */
export const ED25519_P = (1n << 255n) - 19n;

export function fieldMod(value: bigint): bigint {
  const r = value % ED25519_P;
  return r < 0n ? r + ED25519_P : r;
}

export function fieldPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = fieldMod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % ED25519_P;
    b = (b * b) % ED25519_P;
    e >>= 1n;
  }
  return result;
}

/** Inverse by Fermat (p is prime); the argument must not be 0. */
export function fieldInvert(value: bigint): bigint {
  return fieldPow(value, ED25519_P - 2n);
}

/** Edwards curve constant d = −121665 / 121666 (mod p). */
export const ED25519_D = fieldMod(-121665n * fieldInvert(121666n));
