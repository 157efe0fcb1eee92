import {
  ED25519_D as D,
  fieldMod,
  fieldInvert as invert,
  ED25519_P as P,
  fieldPow as powMod,
} from '../../fuego/ed25519-field.js';
import { bytesToHex } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';

/**
 * Just enough ed25519 to give the simulated wallet real key pairs: scalar reduction and
 * scalar × base point, in plain bigint arithmetic (slow, ~ms per key, fine for a devnet that makes a
 * handful of addresses). Public keys are the standard 32-byte compressed encodings, so addresses pass
 * the daemon's point check.
 */
/** Order of the base point subgroup. */
export const ED25519_L = (1n << 252n) + 27742317777372353535851937790883648493n;
const BASE_Y = mod(4n * invert(5n));
const BASE_X = recoverX(BASE_Y, 0n);

/** Reduction modulo the field prime, or modulo `m` (the group order, for scalars). */
function mod(value: bigint, m = P): bigint {
  if (m === P) return fieldMod(value);
  const r = value % m;
  return r < 0n ? r + m : r;
}

function recoverX(y: bigint, sign: bigint): bigint {
  const xx = mod((y * y - 1n) * invert(D * y * y + 1n));
  let x = powMod(xx, (P + 3n) / 8n);
  if (mod(x * x - xx) !== 0n) x = mod(x * powMod(2n, (P - 1n) / 4n));
  if ((x & 1n) !== sign) x = mod(-x);
  return x;
}

/** Extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z. */
type Point = readonly [bigint, bigint, bigint, bigint];

function add(p: Point, q: Point): Point {
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

function multiplyBase(scalar: bigint): Point {
  let result: Point = [0n, 1n, 1n, 0n];
  let addend: Point = [BASE_X, BASE_Y, 1n, mod(BASE_X * BASE_Y)];
  let k = scalar;
  while (k > 0n) {
    if (k & 1n) result = add(result, addend);
    addend = add(addend, addend);
    k >>= 1n;
  }
  return result;
}

function encodePoint(point: Point): Uint8Array {
  const zInv = invert(point[2]);
  const x = mod(point[0] * zInv);
  const y = mod(point[1] * zInv);
  const value = y | ((x & 1n) << 255n);
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function bytesToScalar(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function scalarToBytes(scalar: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = scalar;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** CryptoNote `sc_reduce32`: a 32-byte little-endian number reduced modulo ℓ. */
export function reduceScalar(bytes: Uint8Array): Uint8Array {
  return scalarToBytes(mod(bytesToScalar(bytes), ED25519_L));
}

/** Whether 32 bytes are a canonical scalar (< ℓ), as the wallet requires of imported secret keys. */
export function isCanonicalScalar(bytes: Uint8Array): boolean {
  return bytes.length === 32 && bytesToScalar(bytes) < ED25519_L;
}

/** secret × G, the public key of a secret key. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return encodePoint(multiplyBase(bytesToScalar(secretKey)));
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
