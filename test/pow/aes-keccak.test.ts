import { keccak_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import {
  AES_SBOX,
  aesFillColumn,
  aesFoldColumn,
  aesRound,
  expandAesKey10,
} from '../../src/pow/reference/aes-round.js';
import { KECCAK_STATE_BYTES, keccakState } from '../../src/pow/reference/keccak-state.js';
import { readJsonFixture } from '../helpers/fixtures.js';

/** Bytes as little-endian 32-bit words, the packing of aes-round.ts. */
function toWords(hex: string): Int32Array {
  const bytes = hexToBytes(hex);
  return Int32Array.from({ length: bytes.length / 4 }, (_, i) =>
    new DataView(bytes.buffer).getInt32(4 * i, true),
  );
}

function toHex(words: Int32Array): string {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < words.length; i++) view.setInt32(4 * i, words[i]!, true);
  return bytesToHex(bytes);
}

describe('AES pieces (FIPS-197)', () => {
  it('computes the S-box', () => {
    expect(AES_SBOX[0x00]).toBe(0x63);
    expect(AES_SBOX[0x01]).toBe(0x7c);
    expect(AES_SBOX[0x53]).toBe(0xed);
    expect(AES_SBOX[0xff]).toBe(0x16);
    expect(new Set(AES_SBOX).size).toBe(256);
  });

  it('expands an AES-256 key (Appendix A.3), keeping 10 round keys', () => {
    const keys = expandAesKey10(
      hexToBytes('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4'),
    );
    expect(keys).toHaveLength(40);
    // w8..w11, written as the bytes of each word.
    expect(toHex(keys.subarray(8, 12))).toBe('9ba354118e6925afa51a8b5f2067fcde');
    expect(toHex(keys.subarray(0, 8))).toBe(
      '603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4',
    );
  });

  it('does one full round (Appendix B, round 1 → start of round 2)', () => {
    const block = toWords('193de3bea0f4e22b9ac68d2ae9f84808');
    const [k0, k1, k2, k3] = toWords('a0fafe1788542cb123a339392a6c7605');
    aesRound(block, 0, k0!, k1!, k2!, k3!);
    expect(toHex(block)).toBe('a49c7ff2689f352b6b5bea43026a5049');
  });

  it('fill and fold columns chain ten rounds per scratchpad block', () => {
    const keys = expandAesKey10(new Uint8Array(32).map((_, i) => i * 7));
    const start = toWords('00112233445566778899aabbccddeeff');
    const tenRounds = (words: Int32Array): Int32Array => {
      const out = words.slice();
      for (let r = 0; r < 10; r++)
        aesRound(out, 0, keys[4 * r]!, keys[4 * r + 1]!, keys[4 * r + 2]!, keys[4 * r + 3]!);
      return out;
    };
    // Fill: 3 blocks at stride 8 words.
    const pad = new Int32Array(24);
    const block = start.slice();
    aesFillColumn(block, keys, pad, 4, 8, 3);
    let expected = start;
    for (let n = 0; n < 3; n++) {
      expected = tenRounds(expected);
      expect(toHex(pad.subarray(4 + 8 * n, 8 + 8 * n))).toBe(toHex(expected));
    }
    expect(block).toEqual(expected);
    // Fold: XOR each block in, then ten rounds.
    const folded = start.slice();
    aesFoldColumn(folded, keys, pad, 4, 8, 3);
    let model = start;
    for (let n = 0; n < 3; n++) {
      const mixed = model.map((w, i) => w ^ pad[4 + 8 * n + i]!);
      model = tenRounds(mixed);
    }
    expect(folded).toEqual(model);
  });
});

describe('keccakState (hash_process)', () => {
  const { vectors } = readJsonFixture<{ cn_fast_hash: { vectors: { input: string; output: string }[] } }>(
    'vectors/format.json',
  ).cn_fast_hash;

  it('gives cn_fast_hash in its first 32 bytes (daemon vectors)', () => {
    for (const v of vectors) {
      const state = keccakState(hexToBytes(v.input));
      expect(state).toHaveLength(KECCAK_STATE_BYTES);
      expect(bytesToHex(state.subarray(0, 32))).toBe(v.output);
    }
  });

  it('agrees with Keccak-256 for every length around the 136-byte rate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), (data) => {
        expect(keccakState(data).subarray(0, 32)).toEqual(keccak_256(data));
      }),
      { numRuns: 300 },
    );
    for (const length of [134, 135, 136, 137, 271, 272, 273]) {
      const data = new Uint8Array(length).fill(0xa5);
      expect(keccakState(data).subarray(0, 32)).toEqual(keccak_256(data));
    }
  });
});
