import { BASE_POINT, decodePoint, encodePoint, multiplyAndAdd } from './ed25519-point.js';
import { bytesToScalar, hashToScalar, passesScalarCheck, scalarMod } from './ed25519-scalar.js';

export const SIGNATURE_BYTES = 64;

/**
 * CryptoNote's `check_signature(prefix_hash, pub, sig)`: a Schnorr signature by the secret key of
 * `publicKey` over a 32-byte hash, as the wallet's `sign_message` makes with the spend key.
 *
 * Layout: signature bytes 0..31 are c, 32..63 are r (scalars, little-endian).
 * Valid when both pass `sc_check` (≤ ℓ) and c ≡ hash_to_scalar(prefixHash ‖ publicKey ‖ R) (mod ℓ)
 * with R = c·P + r·G encoded (`ge_double_scalarmult_base_vartime` + `ge_tobytes`). A public key
 * that is not a point gives false (the daemon's code aborts the process there).
 */
export function checkSignature(
  prefixHash: Uint8Array,
  publicKey: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (prefixHash.length !== 32 || signature.length !== SIGNATURE_BYTES) return false;
  const point = decodePoint(publicKey);
  if (point === undefined) return false;
  const cBytes = signature.subarray(0, 32);
  const rBytes = signature.subarray(32, 64);
  if (!passesScalarCheck(cBytes) || !passesScalarCheck(rBytes)) return false;
  const c = bytesToScalar(cBytes);
  const commitment = encodePoint(multiplyAndAdd(c, point, bytesToScalar(rBytes), BASE_POINT));
  const buffer = new Uint8Array(96);
  buffer.set(prefixHash, 0);
  buffer.set(publicKey, 32);
  buffer.set(commitment, 64);
  return scalarMod(hashToScalar(buffer) - c) === 0n;
}
