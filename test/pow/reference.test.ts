import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnSlowHash } from '../../src/pow/reference/cn-slow-hash.js';
import { cnUpx2, typescriptHasher } from '../../src/pow/reference/cn-upx2.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface Upx2Vector {
  label: string;
  input: string;
  length: number;
  output: string;
  final_hash_index: number;
  fuego_portable_c_path_output_DO_NOT_USE: string;
}
interface OtherVariantVector {
  label: string;
  light: 0 | 1;
  variant: 0 | 1 | 2;
  input: string;
  output: string;
}
interface FormatVectors {
  cn_slow_hash_light1_variant2: { vectors: Upx2Vector[] };
  cn_slow_hash_other_variants: OtherVariantVector[];
}
interface XmrigVectors {
  nonce_offset: number;
  vectors: { blob_sent: string; nonce: string; result: string }[];
}

const format = readJsonFixture<FormatVectors>('vectors/format.json');
const xmrig = readJsonFixture<XmrigVectors>('vectors/upx2-xmrig.json');

describe('cnUpx2 (cn_slow_hash light=1 variant=2)', () => {
  const vectors = format.cn_slow_hash_light1_variant2.vectors;

  it('has the 13 daemon vectors', () => {
    expect(vectors).toHaveLength(13);
  });

  for (const v of vectors) {
    it(`matches the daemon's x86 path: ${v.label}`, () => {
      const input = hexToBytes(v.input);
      expect(input.length).toBe(v.length);
      const hash = cnUpx2(input);
      expect(hash).toHaveLength(32);
      expect(bytesToHex(hash)).toBe(v.output);
      // Guard against the daemon's portable C shuffle (spec §7.3), which gives other hashes.
      expect(bytesToHex(hash)).not.toBe(v.fuego_portable_c_path_output_DO_NOT_USE);
    });
  }

  it('covers all four final hashes through the vectors', () => {
    expect(new Set(vectors.map((v) => v.final_hash_index))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('matches all 240 XMRig cn/upx2 results (nonce written at offset 39)', () => {
    expect(xmrig.vectors).toHaveLength(240);
    expect(xmrig.nonce_offset).toBe(39);
    const mismatches: number[] = [];
    xmrig.vectors.forEach((v, index) => {
      const input = hexToBytes(v.blob_sent);
      input.set(hexToBytes(v.nonce), xmrig.nonce_offset);
      if (bytesToHex(cnUpx2(input)) !== v.result) mismatches.push(index);
    });
    expect(mismatches).toEqual([]);
  });

  it('does not modify its input and is deterministic', () => {
    const input = hexToBytes(vectors[0]!.input);
    const copy = input.slice();
    const first = cnUpx2(input);
    expect(input).toEqual(copy);
    expect(cnUpx2(input)).toEqual(first);
  });

  it('typescriptHasher is the cn/upx2 PowHasher', () => {
    expect(typescriptHasher.implementation).toBe('typescript');
    const v = vectors[1]!;
    expect(bytesToHex(typescriptHasher.hash(hexToBytes(v.input)))).toBe(v.output);
  });
});

describe('cnSlowHash, other variants (majors 1-8)', () => {
  for (const v of format.cn_slow_hash_other_variants) {
    it(`matches ${v.label}`, () => {
      const hash = cnSlowHash(hexToBytes(v.input), { variant: v.variant, light: v.light === 1 });
      expect(bytesToHex(hash)).toBe(v.output);
    });
  }

  it('light variant 2 is cnUpx2', () => {
    const input = hexToBytes(format.cn_slow_hash_light1_variant2.vectors[5]!.input);
    expect(cnSlowHash(input, { variant: 2, light: true })).toEqual(cnUpx2(input));
  });

  it('rejects variant 1 inputs shorter than 43 bytes, like the daemon', () => {
    expect(() => cnSlowHash(new Uint8Array(42), { variant: 1, light: true })).toThrow(RangeError);
  });
});
