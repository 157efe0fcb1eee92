/**
 * Skein-512-256, version 1.3 (final-round) specification: Threefish-512 in UBI chaining mode.
 *
 * 64-bit words are little-endian and held here as pairs of 32-bit halves in an Int32Array
 * (word w = halves 2w (low) and 2w+1 (high)), which keeps the arithmetic exact without bigint.
 *
 * Hash = Output(UBI(UBI(0, config, CFG), message, MSG)), where
 *   UBI(G, block, tweak) = Threefish_G,tweak(block) ⊕ block for each 64-byte block,
 *   the tweak holds the byte position reached (bits 0..95), the block type (bits 120..125),
 *   "first" (bit 126) and "final" (bit 127),
 *   Output = UBI(G, 8-byte counter 0, OUT), truncated to 32 bytes.
 */

const BLOCK_BYTES = 64;
const WORDS = 8;
const ROUNDS = 72;

const TYPE_CONFIG = 4;
const TYPE_MESSAGE = 48;
const TYPE_OUTPUT = 63;

/** Key-schedule parity constant C240 = 0x1BD11BDAA9FC1A22, as (low, high) halves. */
const C240_LO = 0xa9fc1a22 | 0;
const C240_HI = 0x1bd11bda;

/** Threefish-512 MIX rotation amounts R[d mod 8][j]. */
const ROTATIONS = [
  [46, 36, 19, 37],
  [33, 27, 14, 42],
  [17, 49, 36, 39],
  [44, 9, 54, 56],
  [39, 30, 34, 24],
  [13, 50, 10, 17],
  [25, 29, 39, 43],
  [8, 35, 56, 22],
] as const;

/** Word permutation π applied after each round: new word i = old word PERMUTATION[i]. */
const PERMUTATION = [2, 1, 4, 7, 6, 5, 0, 3] as const;

/** dst word d ← a word x + b word y (mod 2^64). */
function add64(dst: Int32Array, d: number, a: Int32Array, x: number, b: Int32Array, y: number): void {
  const lo = (a[2 * x]! >>> 0) + (b[2 * y]! >>> 0);
  dst[2 * d + 1] = a[2 * x + 1]! + b[2 * y + 1]! + (lo > 0xffffffff ? 1 : 0);
  dst[2 * d] = lo;
}

/** MIX on words x, y of v: x ← x + y; y ← (y <<< r) ⊕ x. */
function mix(v: Int32Array, x: number, y: number, r: number): void {
  add64(v, x, v, x, v, y);
  let lo = v[2 * y]!;
  let hi = v[2 * y + 1]!;
  if (r >= 32) {
    const t = lo;
    lo = hi;
    hi = t;
    r -= 32;
  }
  if (r > 0) {
    const nlo = (lo << r) | (hi >>> (32 - r));
    hi = (hi << r) | (lo >>> (32 - r));
    lo = nlo;
  }
  v[2 * y] = lo ^ v[2 * x]!;
  v[2 * y + 1] = hi ^ v[2 * x + 1]!;
}

/**
 * Threefish-512 encryption of `block` under `key` (8 words) and `tweak` (2 words), returned in a new
 * array of 16 halves.
 */
function threefish512(key: Int32Array, tweak: Int32Array, block: Int32Array): Int32Array {
  // Extended key k0..k8 with k8 = C240 ⊕ k0 ⊕ … ⊕ k7, extended tweak t0, t1, t2 = t0 ⊕ t1.
  const k = new Int32Array(2 * (WORDS + 1));
  k.set(key);
  let parityLo = C240_LO;
  let parityHi = C240_HI;
  for (let i = 0; i < WORDS; i++) {
    parityLo ^= key[2 * i]!;
    parityHi ^= key[2 * i + 1]!;
  }
  k[16] = parityLo;
  k[17] = parityHi;
  const t = Int32Array.of(
    tweak[0]!,
    tweak[1]!,
    tweak[2]!,
    tweak[3]!,
    tweak[0]! ^ tweak[2]!,
    tweak[1]! ^ tweak[3]!,
  );

  const v = block.slice();
  const f = new Int32Array(2 * WORDS);
  const addSubkey = (s: number): void => {
    for (let i = 0; i < WORDS; i++) add64(v, i, v, i, k, (s + i) % 9);
    add64(v, 5, v, 5, t, s % 3);
    add64(v, 6, v, 6, t, (s + 1) % 3);
    add64(v, 7, v, 7, Int32Array.of(s, 0), 0);
  };
  for (let d = 0; d < ROUNDS; d++) {
    if (d % 4 === 0) addSubkey(d / 4);
    const r = ROTATIONS[d % 8]!;
    for (let j = 0; j < 4; j++) mix(v, 2 * j, 2 * j + 1, r[j]!);
    f.set(v);
    for (let i = 0; i < WORDS; i++) {
      v[2 * i] = f[2 * PERMUTATION[i]!]!;
      v[2 * i + 1] = f[2 * PERMUTATION[i]! + 1]!;
    }
  }
  addSubkey(ROUNDS / 4);
  return v;
}

function bytesToHalves(bytes: Uint8Array, offset: number): Int32Array {
  const out = new Int32Array(2 * WORDS);
  for (let i = 0; i < 2 * WORDS; i++) {
    const o = offset + 4 * i;
    out[i] =
      (bytes[o] ?? 0) |
      ((bytes[o + 1] ?? 0) << 8) |
      ((bytes[o + 2] ?? 0) << 16) |
      ((bytes[o + 3] ?? 0) << 24);
  }
  return out;
}

/**
 * UBI chaining over `data` (zero-padded to whole blocks; at least one block) of block type `type`,
 * starting from chain value `chain`; returns the new chain value.
 */
function ubi(chain: Int32Array, data: Uint8Array, type: number): Int32Array {
  const blocks = Math.max(1, Math.ceil(data.length / BLOCK_BYTES));
  let g = chain;
  for (let b = 0; b < blocks; b++) {
    const padded = new Uint8Array(BLOCK_BYTES);
    padded.set(data.subarray(b * BLOCK_BYTES, (b + 1) * BLOCK_BYTES));
    const m = bytesToHalves(padded, 0);
    const position = Math.min(data.length, (b + 1) * BLOCK_BYTES); // bytes processed so far
    const flags = (b === 0 ? 1 << 30 : 0) | (b === blocks - 1 ? 1 << 31 : 0);
    // Tweak words: t0 = position (< 2^32 here), t1 = type << 56 | first << 62 | final << 63.
    const tweak = Int32Array.of(position, 0, 0, (type << 24) | flags);
    const e = threefish512(g, tweak, m);
    for (let i = 0; i < 2 * WORDS; i++) e[i]! ^= m[i]!;
    g = e;
  }
  return g;
}

/** Chain value after the configuration block for a 256-bit output (the Skein-512-256 IV). */
function initialChain(): Int32Array {
  // Config string: "SHA3" schema, version 1, output length 256 bits, no tree (32 bytes).
  const config = new Uint8Array(32);
  config.set([0x53, 0x48, 0x41, 0x33, 0x01, 0x00]);
  new DataView(config.buffer).setUint32(8, 256, true);
  return ubi(new Int32Array(2 * WORDS), config, TYPE_CONFIG);
}

const IV = initialChain();

/** Skein-512-256 of `message`. */
export function skein512_256(message: Uint8Array): Uint8Array {
  const g = ubi(IV, message, TYPE_MESSAGE);
  const out = ubi(g, new Uint8Array(8), TYPE_OUTPUT);
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const w = out[i]!;
    bytes[4 * i] = w;
    bytes[4 * i + 1] = w >>> 8;
    bytes[4 * i + 2] = w >>> 16;
    bytes[4 * i + 3] = w >>> 24;
  }
  return bytes;
}
