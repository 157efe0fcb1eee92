import { randomBytes } from 'node:crypto';
import { BASE_POINT, encodePoint, multiplyPoint } from '../../fuego/ed25519-point.js';
import { bytesToScalar, hashToScalar, scalarMod, scalarToBytes } from '../../fuego/ed25519-scalar.js';
import { hexToBytes } from '../../fuego/hex.js';
import { encodeSignatureText, messageHash } from '../../fuego/signed-message.js';
import { publicKeyOf } from './ed25519-keys.js';

/**
 * The wallet side of a signed message, for the devnet and tests (the pool itself only verifies):
 * CryptoNote's `generate_signature`, and simplewallet's `sign_message` as it would print without
 * its memory quirk (see src/fuego/signed-message.ts).
 */

/**
 * `generate_signature(prefix_hash, pub, sec)`: k random, c = hash_to_scalar(prefix_hash ‖ pub ‖ k·G),
 * r = k − c·sec (mod ℓ); the signature is c ‖ r. `nonce` fixes k (tests); by default 64 random
 * bytes reduced, as the wallet does.
 */
export function generateSignature(
  prefixHash: Uint8Array,
  secretKey: Uint8Array,
  nonce: bigint = scalarMod(bytesToScalar(randomBytes(64))),
): Uint8Array {
  const buffer = new Uint8Array(96);
  buffer.set(prefixHash, 0);
  buffer.set(publicKeyOf(secretKey), 32);
  buffer.set(encodePoint(multiplyPoint(nonce, BASE_POINT)), 64);
  const c = hashToScalar(buffer);
  const r = scalarMod(nonce - c * bytesToScalar(secretKey));
  const signature = new Uint8Array(64);
  signature.set(scalarToBytes(c), 0);
  signature.set(scalarToBytes(r), 32);
  return signature;
}

/** `sign_message <message>` in the wallet whose spend secret key is `spendSecretKey` (64 hex). */
export function signMessage(message: string, spendSecretKey: string, nonce?: bigint): string {
  return encodeSignatureText(generateSignature(messageHash(message), hexToBytes(spendSecretKey), nonce));
}
