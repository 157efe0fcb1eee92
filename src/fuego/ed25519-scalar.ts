import { cnFastHash } from './keccak.js';

/**
 * Scalars of ed25519 (integers modulo the order ℓ of the base point), stored as 32 bytes
 * little-endian like CryptoNote's `EllipticCurveScalar`.
 */

/** ℓ = 2^252 + 27742317777372353535851937790883648493, the order of the base point. */
export const ED25519_L = (1n << 252n) + 27742317777372353535851937790883648493n;

/** 32 (or any number of) bytes as a little-endian integer. */
export function bytesToScalar(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[index]!);
  return value;
}

/** A scalar below 2^256 as 32 bytes little-endian. */
export function scalarToBytes(scalar: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let value = scalar;
  for (let index = 0; index < 32; index++) {
    out[index] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

export function scalarMod(value: bigint): bigint {
  const r = value % ED25519_L;
  return r < 0n ? r + ED25519_L : r;
}

/** `sc_reduce32`: 32 bytes little-endian reduced modulo ℓ. */
export function reduceScalar(bytes: Uint8Array): Uint8Array {
  return scalarToBytes(scalarMod(bytesToScalar(bytes)));
}

/**
 * `sc_check` as the daemon has it: the 32 bytes read as an integer are at most ℓ. It refuses
 * s > ℓ only, so ℓ itself passes (that spelling of 0 never makes a signature check succeed).
 */
export function passesScalarCheck(bytes: Uint8Array): boolean {
  return bytes.length === 32 && bytesToScalar(bytes) <= ED25519_L;
}

/** Whether 32 bytes are a canonical scalar (< ℓ), as the wallet requires of imported secret keys. */
export function isCanonicalScalar(bytes: Uint8Array): boolean {
  return bytes.length === 32 && bytesToScalar(bytes) < ED25519_L;
}

/** `hash_to_scalar`: cn_fast_hash of the data, reduced modulo ℓ. */
export function hashToScalar(data: Uint8Array): bigint {
  return scalarMod(bytesToScalar(cnFastHash(data)));
}
