import { blake256 } from '@noble/hashes/blake1.js';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { FINAL_HASH_FUNCTIONS, finalHash } from '../../src/pow/reference/final-hash.js';
import { groestl256 } from '../../src/pow/reference/groestl256.js';
import { jh256 } from '../../src/pow/reference/jh256.js';
import { skein512_256 } from '../../src/pow/reference/skein512-256.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface FinalHashVector {
  input: string;
  state0_and_3: number;
  blake256: string;
  groestl256: string;
  jh256: string;
  skein512_256: string;
}

const { vectors } = readJsonFixture<{ final_hashes: { vectors: FinalHashVector[] } }>(
  'vectors/format.json',
).final_hashes;

const functions = [
  ['blake256', (data: Uint8Array) => blake256(data)],
  ['groestl256', groestl256],
  ['jh256', jh256],
  ['skein512_256', skein512_256],
] as const;

describe('CryptoNight final hashes over 200-byte states (daemon vectors)', () => {
  it('has vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(3);
  });

  for (const [name, fn] of functions) {
    it(`${name} matches every vector`, () => {
      for (const v of vectors) {
        const input = hexToBytes(v.input);
        expect(input).toHaveLength(200);
        expect(bytesToHex(fn(input))).toBe(v[name]);
      }
    });
  }

  it('finalHash picks the function by state[0] & 3', () => {
    for (const v of vectors) {
      const input = hexToBytes(v.input);
      expect(input[0]! & 3).toBe(v.state0_and_3);
      expect(bytesToHex(finalHash(input))).toBe(v[functions[v.state0_and_3]![0]]);
      // Force each index in turn by editing the low bits of byte 0.
      for (let index = 0; index < 4; index++) {
        const edited = input.slice();
        edited[0] = (edited[0]! & ~3) | index;
        expect(finalHash(edited)).toEqual(FINAL_HASH_FUNCTIONS[index]!(edited));
      }
    }
  });
});

// Published empty-message digests of the SHA-3 final-round submissions; they exercise padding of
// a message with no data bytes, which the 200-byte states never do.
describe("final hashes on the empty message (designers' published values)", () => {
  it('groestl256', () => {
    expect(bytesToHex(groestl256(new Uint8Array(0)))).toBe(
      '1a52d11d550039be16107f9c58db9ebcc417f16f736adb2502567119f0083467',
    );
  });
  it('jh256', () => {
    expect(bytesToHex(jh256(new Uint8Array(0)))).toBe(
      '46e64619c18bb0a92a5e87185a47eef83ca747b8fcc8e1412921357e326df434',
    );
  });
  it('skein512_256', () => {
    expect(bytesToHex(skein512_256(new Uint8Array(0)))).toBe(
      '39ccc4554a8b31853b9de7a1fe638a24cce6b35a55f2431009e18780335d2621',
    );
  });
});

describe('final hashes across block boundaries', () => {
  // Each function must give the same result whatever the message length's position relative to
  // its block size; compare lengths around the 64-byte block edge for consistency and size.
  for (const [name, fn] of functions) {
    it(`${name} returns 32 bytes and distinct digests for lengths 0..130`, () => {
      const seen = new Set<string>();
      for (let length = 0; length <= 130; length++) {
        const digest = fn(new Uint8Array(length).fill(0x5a));
        expect(digest).toHaveLength(32);
        seen.add(bytesToHex(digest));
      }
      expect(seen.size).toBe(131);
    });
  }
});
