import { AES_TABLES, aesFillColumn, aesFoldColumn, expandAesKey10 } from './aes-round.js';
import { finalHash } from './final-hash.js';
import { keccakPermute, keccakState } from './keccak-state.js';
import { mul64x64, variant2Divide, variant2Sqrt } from './variant2-math.js';

/**
 * CryptoNight `cn_slow_hash(data, light, variant)` as Fuego uses it (spec §7). Variant 2 + light is
 * cn/upx2, the proof of work of block major version 9; the other combinations are the historic
 * majors 1–8 (§7.1).
 *
 * Representation: the scratchpad is an Int32Array; a 16-byte block is four little-endian 32-bit
 * words, and a 64-bit lane (x0 = bytes 0..7, x1 = bytes 8..15) is a (lo, hi) pair of words.
 */
export interface CnSlowHashOptions {
  /** 0: original CryptoNight, 1: CNv1 tweak (major 5), 2: CNv2 integer math and shuffle. */
  readonly variant: 0 | 1 | 2;
  /** "light": 128 KiB scratchpad, 2^14 iterations, mask 0x1FFF0 (and the reversed shuffle in v2). */
  readonly light: boolean;
}

interface ScratchpadShape {
  /** Scratchpad size in bytes. */
  readonly bytes: number;
  /** Main-loop iterations (each does two scratchpad accesses). */
  readonly iterations: number;
  /** Byte-address mask: 16-byte aligned, within the scratchpad. */
  readonly mask: number;
}

const FULL: ScratchpadShape = { bytes: 1 << 21, iterations: 1 << 19, mask: 0x1ffff0 };
const LIGHT: ScratchpadShape = { bytes: 1 << 17, iterations: 1 << 14, mask: 0x1fff0 };

/** Bytes 64..191 of the Keccak state: the 8 AES blocks used to fill and fold the scratchpad. */
const TEXT_OFFSET = 64;
const TEXT_WORDS = 32;

/** Variant 1 needs the 8 input bytes at 35..42 (the nonce sits at 39..42 in 76-byte blobs). */
const VARIANT1_MIN_INPUT = 43;

function readWordsLE(bytes: Uint8Array, offset: number, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const o = offset + 4 * i;
    out[i] = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
  }
  return out;
}

function writeWordsLE(bytes: Uint8Array, offset: number, words: Int32Array): void {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const o = offset + 4 * i;
    bytes[o] = w;
    bytes[o + 1] = w >>> 8;
    bytes[o + 2] = w >>> 16;
    bytes[o + 3] = w >>> 24;
  }
}

/** Variant-1 tweak of byte 11 of a freshly written block (bits 24..31 of its third word). */
function variant1TweakWord(w: number): number {
  const t = w >>> 24;
  const index = (((t >>> 3) & 6) | (t & 1)) << 1;
  return (w & 0x00ffffff) | ((t ^ ((0x75310 >>> index) & 0x30)) << 24);
}

/**
 * Step 2: fill the scratchpad. Chunk 0 (128 bytes) is the 8 text blocks after 10 AES rounds each;
 * chunk n is chunk n−1 after 10 more rounds. Each text block thus runs down its own column of the
 * scratchpad (word offset 4k, stride 32 words), which is how it is computed here.
 */
function fillScratchpad(pad: Int32Array, state: Uint8Array): void {
  const keys = expandAesKey10(state, 0);
  const text = readWordsLE(state, TEXT_OFFSET, TEXT_WORDS);
  const chunks = pad.length / TEXT_WORDS;
  for (let k = 0; k < TEXT_WORDS; k += 4) {
    aesFillColumn(text.subarray(k, k + 4), keys, pad, k, TEXT_WORDS, chunks);
  }
}

/**
 * Step 5: fold the scratchpad into the text: for each chunk in order, text block k ^= chunk block k,
 * then 10 AES rounds (with the keys from S[32..63]). Then write the text back to S[64..191] and
 * permute the state.
 */
function foldScratchpad(pad: Int32Array, state: Uint8Array): void {
  const keys = expandAesKey10(state, 32);
  const text = readWordsLE(state, TEXT_OFFSET, TEXT_WORDS);
  const chunks = pad.length / TEXT_WORDS;
  for (let k = 0; k < TEXT_WORDS; k += 4) {
    aesFoldColumn(text.subarray(k, k + 4), keys, pad, k, TEXT_WORDS, chunks);
  }
  writeWordsLE(state, TEXT_OFFSET, text);
  keccakPermute(state);
}

/**
 * Step 4, the memory-hard loop (spec §7.2 steps 4.1–4.9).
 *
 * Word indices: j is a byte address / 4, so a 16-byte block is pad[j], pad[j|1], pad[j|2], pad[j|3]
 * with lane x0 = (pad[j], pad[j|1]) and lane x1 = (pad[j|2], pad[j|3]); the chunks j⊕0x10, j⊕0x20,
 * j⊕0x30 are j^4, j^8, j^12.
 *
 * Written for speed: the registers live in local variables, and the AES round and the chunk
 * shuffle are inlined by hand (the shuffle twice). Calling helpers with 16 arguments here exhausts
 * V8's inlining budget and makes the loop about 1.6× slower.
 *
 * 64-bit lane additions: for (xLo, xHi) + (yLo, yHi), lo = (xLo + yLo) | 0 and
 * hi = (xHi + yHi + carry) | 0 with carry = (lo >>> 0) < (xLo >>> 0).
 *
 * Variant-2 SHUFFLE(j) with the old chunks C1 = P[j⊕0x10], C2 = P[j⊕0x20], C3 = P[j⊕0x30]:
 *   light (cn/upx2, "reversed"): P[j⊕0x10] = C1 + bp, P[j⊕0x20] = C3 + b, P[j⊕0x30] = C2 + a;
 *   standard CNv2:                P[j⊕0x10] = C3 + bp, P[j⊕0x20] = C1 + b, P[j⊕0x30] = C2 + a.
 * Below, `toFirst`/`toSecond` are the XOR offsets (in words) of the chunks that go to j⊕0x10 and
 * j⊕0x20, so one code path serves both orders.
 */
function mainLoop(
  pad: Int32Array,
  state: Uint8Array,
  shape: ScratchpadShape,
  variant: 0 | 1 | 2,
  light: boolean,
  tweak: Int32Array,
): void {
  const [t0, t1, t2, t3] = AES_TABLES;
  const sw = readWordsLE(state, 0, 28); // state words 0..27 (bytes 0..111)
  const mask = shape.mask;
  const iterations = shape.iterations;
  const v1 = variant === 1;
  const v2 = variant === 2;
  const toFirst = light ? 4 : 12;
  const toSecond = light ? 12 : 4;
  // Variant 1 XORs its tweak into lane x1 of the block written in 4.8 (zero otherwise).
  const tw0 = tweak[0]!;
  const tw1 = tweak[1]!;
  const out = new Int32Array(4); // results of the division and of the multiplication

  // Step 3: registers. a = S[0..15] ⊕ S[32..47], b = S[16..31] ⊕ S[48..63], bp = S[64..79] ⊕ S[80..95].
  let a0 = sw[0]! ^ sw[8]!;
  let a1 = sw[1]! ^ sw[9]!;
  let a2 = sw[2]! ^ sw[10]!;
  let a3 = sw[3]! ^ sw[11]!;
  let b0 = sw[4]! ^ sw[12]!;
  let b1 = sw[5]! ^ sw[13]!;
  let b2 = sw[6]! ^ sw[14]!;
  let b3 = sw[7]! ^ sw[15]!;
  let p0 = sw[16]! ^ sw[20]!;
  let p1 = sw[17]! ^ sw[21]!;
  let p2 = sw[18]! ^ sw[22]!;
  let p3 = sw[19]! ^ sw[23]!;
  // D = LE64(S[96..103]); R = LE64(S[104..111]), of which only the low word is ever used.
  let dLo = sw[24]!;
  let dHi = sw[25]!;
  let r = sw[26]!;

  for (let iter = 0; iter < iterations; iter++) {
    // 4.1  j = a0 & mask; c = AESROUND(P[j], key a).
    let j = (a0 & mask) >>> 2;
    let x0 = pad[j]!;
    let x1 = pad[j | 1]!;
    let x2 = pad[j | 2]!;
    let x3 = pad[j | 3]!;
    const c0 = t0[x0 & 0xff]! ^ t1[(x1 >>> 8) & 0xff]! ^ t2[(x2 >>> 16) & 0xff]! ^ t3[x3 >>> 24]! ^ a0;
    const c1 = t0[x1 & 0xff]! ^ t1[(x2 >>> 8) & 0xff]! ^ t2[(x3 >>> 16) & 0xff]! ^ t3[x0 >>> 24]! ^ a1;
    const c2 = t0[x2 & 0xff]! ^ t1[(x3 >>> 8) & 0xff]! ^ t2[(x0 >>> 16) & 0xff]! ^ t3[x1 >>> 24]! ^ a2;
    const c3 = t0[x3 & 0xff]! ^ t1[(x0 >>> 8) & 0xff]! ^ t2[(x1 >>> 16) & 0xff]! ^ t3[x2 >>> 24]! ^ a3;

    // 4.2  SHUFFLE(j); P[j] = c ⊕ b (variant 1 also tweaks byte 11).
    if (v2) {
      // u: the chunk moving to j⊕0x10, v: to j⊕0x20, w: C2, to j⊕0x30.
      const first = j ^ toFirst;
      const second = j ^ toSecond;
      const third = j ^ 8;
      const u0 = pad[first]!;
      const u1 = pad[first | 1]!;
      const u2 = pad[first | 2]!;
      const u3 = pad[first | 3]!;
      const v0 = pad[second]!;
      const v1 = pad[second | 1]!;
      const v2 = pad[second | 2]!;
      const v3 = pad[second | 3]!;
      const w0 = pad[third]!;
      const w1 = pad[third | 1]!;
      const w2 = pad[third | 2]!;
      const w3 = pad[third | 3]!;
      let k = j ^ 4;
      let lo = (u0 + p0) | 0;
      pad[k] = lo;
      pad[k | 1] = (u1 + p1 + (lo >>> 0 < u0 >>> 0 ? 1 : 0)) | 0;
      lo = (u2 + p2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (u3 + p3 + (lo >>> 0 < u2 >>> 0 ? 1 : 0)) | 0;
      k = j ^ 8;
      lo = (v0 + b0) | 0;
      pad[k] = lo;
      pad[k | 1] = (v1 + b1 + (lo >>> 0 < v0 >>> 0 ? 1 : 0)) | 0;
      lo = (v2 + b2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (v3 + b3 + (lo >>> 0 < v2 >>> 0 ? 1 : 0)) | 0;
      k = j ^ 12;
      lo = (w0 + a0) | 0;
      pad[k] = lo;
      pad[k | 1] = (w1 + a1 + (lo >>> 0 < w0 >>> 0 ? 1 : 0)) | 0;
      lo = (w2 + a2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (w3 + a3 + (lo >>> 0 < w2 >>> 0 ? 1 : 0)) | 0;
    }
    pad[j] = c0 ^ b0;
    pad[j | 1] = c1 ^ b1;
    pad[j | 2] = v1 ? variant1TweakWord(c2 ^ b2) : c2 ^ b2;
    pad[j | 3] = c3 ^ b3;

    // 4.3  j = c0 & mask; x = P[j].
    j = (c0 & mask) >>> 2;
    x0 = pad[j]!;
    x1 = pad[j | 1]!;
    x2 = pad[j | 2]!;
    x3 = pad[j | 3]!;

    if (v2) {
      // 4.4  x0 ^= D ^ (R << 32); D = (c1 div d) + ((c1 mod d) << 32) with d = (c0 + 2R) | 0x80000001;
      //      R = ⌊2·√(2^64 + c0 + D) − 2^33⌋.
      x0 ^= dLo;
      x1 ^= dHi ^ r;
      variant2Divide(out, 0, c2, c3, (c0 + (r << 1)) | 0x80000001);
      dLo = out[0]!;
      dHi = out[1]!;
      const tLo = (c0 + dLo) | 0;
      r = variant2Sqrt(tLo, (c1 + dHi + (tLo >>> 0 < c0 >>> 0 ? 1 : 0)) | 0) | 0;
    }

    // 4.5  (hi, lo) = c0 × x0, a 128-bit product.
    mul64x64(out, 0, c0, c1, x0, x1);
    let lo0 = out[0]!;
    let lo1 = out[1]!;
    let hi0 = out[2]!;
    let hi1 = out[3]!;

    if (v2) {
      // 4.6  P[j⊕0x10] ^= (hi ‖ lo); (hi, lo) ^= P[j⊕0x20].
      let k = j ^ 4;
      pad[k]! ^= hi0;
      pad[k | 1]! ^= hi1;
      pad[k | 2]! ^= lo0;
      pad[k | 3]! ^= lo1;
      k = j ^ 8;
      hi0 ^= pad[k]!;
      hi1 ^= pad[k | 1]!;
      lo0 ^= pad[k | 2]!;
      lo1 ^= pad[k | 3]!;

      // 4.7  SHUFFLE(j) as in 4.2, still with a, b, bp from the start of the iteration.
      const first = j ^ toFirst;
      const second = j ^ toSecond;
      const third = j ^ 8;
      const u0 = pad[first]!;
      const u1 = pad[first | 1]!;
      const u2 = pad[first | 2]!;
      const u3 = pad[first | 3]!;
      const v0 = pad[second]!;
      const v1 = pad[second | 1]!;
      const v2 = pad[second | 2]!;
      const v3 = pad[second | 3]!;
      const w0 = pad[third]!;
      const w1 = pad[third | 1]!;
      const w2 = pad[third | 2]!;
      const w3 = pad[third | 3]!;
      k = j ^ 4;
      let lo = (u0 + p0) | 0;
      pad[k] = lo;
      pad[k | 1] = (u1 + p1 + (lo >>> 0 < u0 >>> 0 ? 1 : 0)) | 0;
      lo = (u2 + p2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (u3 + p3 + (lo >>> 0 < u2 >>> 0 ? 1 : 0)) | 0;
      k = j ^ 8;
      lo = (v0 + b0) | 0;
      pad[k] = lo;
      pad[k | 1] = (v1 + b1 + (lo >>> 0 < v0 >>> 0 ? 1 : 0)) | 0;
      lo = (v2 + b2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (v3 + b3 + (lo >>> 0 < v2 >>> 0 ? 1 : 0)) | 0;
      k = j ^ 12;
      lo = (w0 + a0) | 0;
      pad[k] = lo;
      pad[k | 1] = (w1 + a1 + (lo >>> 0 < w0 >>> 0 ? 1 : 0)) | 0;
      lo = (w2 + a2) | 0;
      pad[k | 2] = lo;
      pad[k | 3] = (w3 + a3 + (lo >>> 0 < w2 >>> 0 ? 1 : 0)) | 0;
    }

    // 4.8  a0 += hi, a1 += lo; P[j] = a (variant 1: lane x1 ^= tweak); a ^= x.
    let sum = (a0 + hi0) | 0;
    a1 = (a1 + hi1 + (sum >>> 0 < a0 >>> 0 ? 1 : 0)) | 0;
    a0 = sum;
    sum = (a2 + lo0) | 0;
    a3 = (a3 + lo1 + (sum >>> 0 < a2 >>> 0 ? 1 : 0)) | 0;
    a2 = sum;
    pad[j] = a0;
    pad[j | 1] = a1;
    pad[j | 2] = a2 ^ tw0;
    pad[j | 3] = a3 ^ tw1;
    a0 ^= x0;
    a1 ^= x1;
    a2 ^= x2;
    a3 ^= x3;

    // 4.9  bp = b; b = c.
    p0 = b0;
    p1 = b1;
    p2 = b2;
    p3 = b3;
    b0 = c0;
    b1 = c1;
    b2 = c2;
    b3 = c3;
  }
}

/**
 * `cn_slow_hash` of `input` (spec §7.2): Keccak state, scratchpad fill, main loop, fold, final hash.
 * Returns the 32-byte hash. Synchronous and CPU-heavy: call it from a worker thread, not the event
 * loop. Variant 1 requires at least 43 input bytes, as in the daemon.
 */
export function cnSlowHash(input: Uint8Array, options: CnSlowHashOptions): Uint8Array {
  const { variant, light } = options;
  if (variant === 1 && input.length < VARIANT1_MIN_INPUT) {
    throw new RangeError(`cn variant 1 needs at least ${VARIANT1_MIN_INPUT} input bytes`);
  }
  const shape = light ? LIGHT : FULL;
  const state = keccakState(input);

  // Variant 1 tweak = LE64(S[192..199]) ⊕ LE64(input[35..42]); zero (no effect) otherwise.
  const tweak = new Int32Array(2);
  if (variant === 1) {
    const st = readWordsLE(state, 192, 2);
    const inp = readWordsLE(input, 35, 2);
    tweak[0] = st[0]! ^ inp[0]!;
    tweak[1] = st[1]! ^ inp[1]!;
  }

  const pad = new Int32Array(shape.bytes / 4);
  fillScratchpad(pad, state);
  mainLoop(pad, state, shape, variant, light, tweak);
  foldScratchpad(pad, state);
  return finalHash(state);
}
