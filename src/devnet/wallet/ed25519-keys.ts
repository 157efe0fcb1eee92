import { BASE_POINT, encodePoint, multiplyPoint } from '../../fuego/ed25519-point.js';
import { bytesToScalar, reduceScalar } from '../../fuego/ed25519-scalar.js';
import { bytesToHex } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';

/**
 * Just enough key handling to give the simulated wallet real key pairs (slow bigint arithmetic,
 * ~ms per key, fine for a devnet that makes a handful of addresses). Public keys are the standard
 * 32-byte compressed encodings, so addresses pass the daemon's point check.
 */

/** secret × G, the public key of a secret key. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return encodePoint(multiplyPoint(bytesToScalar(secretKey), BASE_POINT));
}

export interface KeyPair {
  /** 64 hex characters each. */
  readonly secretKey: string;
  readonly publicKey: string;
}

/** The key pair whose secret is `hash_to_scalar(seed)` (keccak, then reduce), as CryptoNote derives view keys. */
export function keyPairFromSeed(seed: Uint8Array): KeyPair {
  const secret = reduceScalar(cnFastHash(seed));
  return { secretKey: bytesToHex(secret), publicKey: bytesToHex(publicKeyOf(secret)) };
}
