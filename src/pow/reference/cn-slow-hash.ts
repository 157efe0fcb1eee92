import { aesFillColumn, aesFoldColumn, expandAesKey10 } from './aes-round.js';
import { finalHash } from './final-hash.js';
import { keccakPermute, keccakState } from './keccak-state.js';
import { mainLoop } from './main-loop.js';

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

/**
 * Chunks per call of aesFillColumn/aesFoldColumn. As in the main loop (CHUNK_ITERATIONS in
 * main-loop.ts): with one long call per column, V8 sometimes ends up running the AES loop in slower
 * on-stack-replacement code (~1.4× here); short calls get it optimized normally.
 */
const CHUNKS_PER_CALL = 64;

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
    const block = text.subarray(k, k + 4);
    for (let n = 0; n < chunks; n += CHUNKS_PER_CALL) {
      aesFillColumn(block, keys, pad, k + n * TEXT_WORDS, TEXT_WORDS, CHUNKS_PER_CALL);
    }
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
    const block = text.subarray(k, k + 4);
    for (let n = 0; n < chunks; n += CHUNKS_PER_CALL) {
      aesFoldColumn(block, keys, pad, k + n * TEXT_WORDS, TEXT_WORDS, CHUNKS_PER_CALL);
    }
  }
  writeWordsLE(state, TEXT_OFFSET, text);
  keccakPermute(state);
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
  mainLoop(pad, state, { variant, light, iterations: shape.iterations, mask: shape.mask, tweak });
  foldScratchpad(pad, state);
  return finalHash(state);
}
