import { keccakP } from '@noble/hashes/sha3.js';

/** Keccak-256's rate: 1600-bit state minus 2 × 256 bits of capacity. */
const RATE_BYTES = 136;

/** Size of the Keccak-f[1600] state in bytes. */
export const KECCAK_STATE_BYTES = 200;

/**
 * Applies Keccak-f[1600] (24 rounds) to a 200-byte state in place.
 *
 * The state is 25 lanes of 8 bytes, each lane little-endian (byte 8·i is the low byte of lane i).
 * The permutation works on 50 32-bit words (low word of a lane first); converting explicitly keeps
 * this correct on big-endian hosts too.
 */
export function keccakPermute(state: Uint8Array): void {
  const words = new Uint32Array(50);
  for (let i = 0; i < 50; i++) {
    const o = i * 4;
    words[i] = (state[o]! | (state[o + 1]! << 8) | (state[o + 2]! << 16) | (state[o + 3]! << 24)) >>> 0;
  }
  keccakP(words, 24);
  for (let i = 0; i < 50; i++) {
    const w = words[i]!;
    const o = i * 4;
    state[o] = w;
    state[o + 1] = w >>> 8;
    state[o + 2] = w >>> 16;
    state[o + 3] = w >>> 24;
  }
}

/**
 * CryptoNote's `hash_process`: the full 200-byte Keccak state after absorbing `input`.
 *
 * Sponge with rate 136 and the original Keccak padding (spec §1.3): after the message append 0x01,
 * zero-fill, and OR 0x80 into the last byte of the final 136-byte block (both land in one byte when
 * the message leaves exactly one free byte). The first 32 bytes of the result are `cn_fast_hash`.
 */
export function keccakState(input: Uint8Array): Uint8Array {
  const state = new Uint8Array(KECCAK_STATE_BYTES);
  let offset = 0;
  // Full blocks.
  for (; offset + RATE_BYTES <= input.length; offset += RATE_BYTES) {
    for (let i = 0; i < RATE_BYTES; i++) state[i]! ^= input[offset + i]!;
    keccakPermute(state);
  }
  // Last, padded block (always present, possibly holding only padding).
  const tail = input.length - offset;
  for (let i = 0; i < tail; i++) state[i]! ^= input[offset + i]!;
  state[tail]! ^= 0x01;
  state[RATE_BYTES - 1]! ^= 0x80;
  keccakPermute(state);
  return state;
}
