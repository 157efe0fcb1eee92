import { describe, expect, it } from 'vitest';
import { CodecError } from '../../src/fuego/errors.js';
import { bytesToHex } from '../../src/fuego/hex.js';
import { cnFastHash, hashPair } from '../../src/fuego/keccak.js';
import { treeBranch, treeDepth, treeHash, treeHashFromBranch } from '../../src/fuego/tree-hash.js';

const leaf = (i: number): Uint8Array => cnFastHash(Uint8Array.of(i & 0xff, i >> 8));
const leaves = (n: number): Uint8Array[] => Array.from({ length: n }, (_, i) => leaf(i));
const hex = bytesToHex;

describe('treeHash', () => {
  it('follows the worked cases of the spec', () => {
    const h = leaves(5);
    const [h0, h1, h2, h3, h4] = h as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    expect(hex(treeHash([h0]))).toBe(hex(h0));
    expect(hex(treeHash([h0, h1]))).toBe(hex(hashPair(h0, h1)));
    expect(hex(treeHash([h0, h1, h2]))).toBe(hex(hashPair(h0, hashPair(h1, h2))));
    expect(hex(treeHash([h0, h1, h2, h3]))).toBe(hex(hashPair(hashPair(h0, h1), hashPair(h2, h3))));
    expect(hex(treeHash(h))).toBe(hex(hashPair(hashPair(h0, h1), hashPair(h2, hashPair(h3, h4)))));
  });

  it('needs a leaf', () => {
    expect(() => treeHash([])).toThrow(CodecError);
    expect(() => treeBranch([])).toThrow(CodecError);
    expect(() => treeDepth(0)).toThrow(CodecError);
  });

  it('does not return its input array', () => {
    const only = leaf(1);
    expect(treeHash([only])).not.toBe(only);
  });
});

describe('treeDepth', () => {
  it('is floor(log2 n)', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 65535].map(treeDepth)).toEqual([
      0, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 15,
    ]);
  });
});

describe('treeBranch + treeHashFromBranch', () => {
  it('recomputes the root from the coinbase branch for every n up to 70', () => {
    for (let n = 1; n <= 70; n++) {
      const all = leaves(n);
      const branch = treeBranch(all);
      expect(branch).toHaveLength(treeDepth(n));
      expect(hex(treeHashFromBranch(branch, all[0]!))).toBe(hex(treeHash(all)));
      // The branch of leaf 0 does not depend on leaf 0: a new coinbase hash gives the new root.
      const other = [cnFastHash(Uint8Array.of(0xee)), ...all.slice(1)];
      expect(hex(treeHashFromBranch(branch, other[0]!))).toBe(hex(treeHash(other)));
    }
  });

  it('uses path bit d (byte d >> 3) to put the running hash on the right of branch[d]', () => {
    const [a, b, x] = [leaf(1), leaf(2), leaf(3)];
    expect(hex(treeHashFromBranch([], x, Uint8Array.of(0xff)))).toBe(hex(x));
    expect(hex(treeHashFromBranch([b], x))).toBe(hex(hashPair(x, b)));
    expect(hex(treeHashFromBranch([b], x, Uint8Array.of(1)))).toBe(hex(hashPair(b, x)));
    // depth 2: level 1 (next to the leaf) is bit 1, level 0 (next to the root) is bit 0.
    expect(hex(treeHashFromBranch([a, b], x, Uint8Array.of(0b10)))).toBe(hex(hashPair(hashPair(b, x), a)));
    expect(hex(treeHashFromBranch([a, b], x, Uint8Array.of(0b01)))).toBe(hex(hashPair(a, hashPair(x, b))));
    // Bit 8 lives in the second byte.
    const branch9 = leaves(9);
    const path = new Uint8Array(32);
    path[1] = 1;
    let expected = x;
    for (let d = 8; d >= 0; d--) {
      expected = d === 8 ? hashPair(branch9[d]!, expected) : hashPair(expected, branch9[d]!);
    }
    expect(hex(treeHashFromBranch(branch9, x, path))).toBe(hex(expected));
  });
});
