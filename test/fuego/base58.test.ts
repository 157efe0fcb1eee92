import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASE58_ALPHABET, Base58Error, decodeBase58, encodeBase58 } from '../../src/fuego/base58.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface AddressVector {
  address: string;
  raw_decoded?: string;
}

const vectors = readJsonFixture<{ addresses: AddressVector[] }>('vectors/format.json').addresses;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof Base58Error) return error.code;
    throw error;
  }
  return undefined;
}

describe('CryptoNote block base58', () => {
  it('decodes the real addresses to their raw bytes and encodes them back', () => {
    const withRaw = vectors.filter((v) => v.raw_decoded !== undefined);
    expect(withRaw.length).toBe(2);
    for (const vector of withRaw) {
      expect(bytesToHex(decodeBase58(vector.address))).toBe(vector.raw_decoded);
      expect(encodeBase58(hexToBytes(vector.raw_decoded!))).toBe(vector.address);
    }
  });

  it('uses fixed widths per block size (8 → 11, k → 2,3,5,6,7,9,10), left-padded with 1', () => {
    const widths = [0, 2, 3, 5, 6, 7, 9, 10, 11];
    for (let k = 0; k <= 8; k++) {
      expect(encodeBase58(new Uint8Array(k))).toBe('1'.repeat(widths[k]!));
    }
    expect(encodeBase58(Uint8Array.of(57))).toBe('1z');
    expect(encodeBase58(Uint8Array.of(58))).toBe('21');
    expect(encodeBase58(new Uint8Array(8).fill(0xff))).toBe('jpXCZedGfVQ');
    expect(encodeBase58(new Uint8Array(9))).toBe('1'.repeat(13));
  });

  it('rejects characters outside the alphabet with their 1-based position', () => {
    for (const bad of ['0', 'O', 'I', 'l', ' ', '+', 'é']) {
      try {
        decodeBase58(`1111${bad}111111`);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(Base58Error);
        expect((error as Base58Error).code).toBe('BAD_CHARACTER');
        expect((error as Base58Error).data).toMatchObject({ character: bad, position: 5 });
      }
    }
  });

  it('rejects impossible final block lengths (1, 4, 8 characters)', () => {
    for (const length of [1, 4, 8, 12, 15, 19]) {
      expect(codeOf(() => decodeBase58('1'.repeat(length)))).toBe('BAD_BLOCK_SIZE');
    }
    for (const length of [0, 2, 3, 5, 6, 7, 9, 10, 11, 13]) {
      expect(codeOf(() => decodeBase58('1'.repeat(length)))).toBeUndefined();
    }
  });

  it('rejects block values that overflow their byte size', () => {
    expect(codeOf(() => decodeBase58('zzzzzzzzzzz'))).toBe('BLOCK_OVERFLOW'); // 58^11 - 1 > 2^64 - 1
    expect(codeOf(() => decodeBase58('jpXCZedGfVR'))).toBe('BLOCK_OVERFLOW'); // 2^64
    expect(bytesToHex(decodeBase58('jpXCZedGfVQ'))).toBe('ffffffffffffffff');
    expect(codeOf(() => decodeBase58('5R'))).toBe('BLOCK_OVERFLOW'); // 256 in a 1-byte block
    expect(bytesToHex(decodeBase58('5Q'))).toBe('ff');
    const invalid = vectors.find((v) => v.address.length === 115)!;
    expect(codeOf(() => decodeBase58(invalid.address))).toBe('BLOCK_OVERFLOW');
  });

  it('round-trips any bytes, and encoded text only uses the alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = encodeBase58(bytes);
        expect([...text].every((char) => BASE58_ALPHABET.includes(char))).toBe(true);
        expect(bytesToHex(decodeBase58(text))).toBe(bytesToHex(bytes));
      }),
    );
  });
});
