import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { findPackageRoot } from '../../src/package-root.js';
import {
  loadNativeAddon,
  loadNativeHasher,
  type NativeCnAddon,
  NativePowUnavailableError,
  nativeAddonPath,
  nativeHasAesNi,
} from '../../src/pow/native.js';
import { readJsonFixture } from '../helpers/fixtures.js';

// The addon is built by `npm ci` (scripts/build-native.mjs). A missing addon fails this suite
// unless the build was skipped on purpose with FUEGO_POW_SKIP_NATIVE=1.
const skipNative = process.env['FUEGO_POW_SKIP_NATIVE'] === '1';

interface XmrigVectors {
  nonce_offset: number;
  vectors: { blob_sent: string; nonce: string; result: string }[];
}
interface FormatVectors {
  cn_slow_hash_light1_variant2: { vectors: { label: string; input: string; output: string }[] };
  final_hashes: {
    vectors: { input: string; blake256: string; groestl256: string; jh256: string; skein512_256: string }[];
  };
  cn_slow_hash_other_variants: {
    label: string;
    light: 0 | 1;
    variant: 0 | 1 | 2;
    input: string;
    output: string;
  }[];
  cn_fast_hash: { vectors: { input: string; output: string }[] };
}

const xmrig = readJsonFixture<XmrigVectors>('vectors/upx2-xmrig.json');
const format = readJsonFixture<FormatVectors>('vectors/format.json');

/** Hash input of an XMRig triple: the blob as sent with the submitted nonce at bytes 39..42. */
function xmrigInput(vector: { blob_sent: string; nonce: string }): Uint8Array {
  const input = hexToBytes(vector.blob_sent);
  input.set(hexToBytes(vector.nonce), xmrig.nonce_offset);
  return input;
}

const paths = [
  { name: 'AES-NI', portable: false },
  { name: 'portable', portable: true },
] as const;

describe.skipIf(skipNative)('native cn/upx2 addon', () => {
  const addon = loadNativeAddon();

  it('reports AES-NI (this build host has it; on other CPUs the AES-NI case falls back)', () => {
    expect(typeof addon.hasAesNi()).toBe('boolean');
    expect(nativeHasAesNi()).toBe(addon.hasAesNi());
  });

  describe.each(paths)('$name path', ({ portable }) => {
    it(`matches all ${xmrig.vectors.length} XMRig cn/upx2 results`, () => {
      expect(xmrig.vectors).toHaveLength(240);
      const mismatches = xmrig.vectors.filter(
        (vector) => bytesToHex(addon.hash(xmrigInput(vector), portable)) !== vector.result,
      );
      expect(mismatches).toEqual([]);
    });

    it(`hashes pairs: every XMRig vector beside its neighbour, with inputs of different lengths`, () => {
      const inputs = xmrig.vectors.map(xmrigInput);
      const mismatches: string[] = [];
      for (let i = 0; i < inputs.length; i++) {
        const j = (i + 1) % inputs.length;
        const pair = addon.hashPair(inputs[i]!, inputs[j]!, portable);
        expect(pair).toHaveLength(64);
        if (bytesToHex(pair.subarray(0, 32)) !== xmrig.vectors[i]!.result) mismatches.push(`first ${i}`);
        if (bytesToHex(pair.subarray(32)) !== xmrig.vectors[j]!.result) mismatches.push(`second ${j}`);
      }
      expect(mismatches).toEqual([]);
      const short = hexToBytes('0102');
      const both = addon.hashPair(short, inputs[0]!, portable);
      expect(bytesToHex(both.subarray(0, 32))).toBe(bytesToHex(addon.hash(short, portable)));
      expect(bytesToHex(both.subarray(32))).toBe(xmrig.vectors[0]!.result);
    });

    it('matches the 13 Fuego cn/upx2 vectors', () => {
      const vectors = format.cn_slow_hash_light1_variant2.vectors;
      expect(vectors).toHaveLength(13);
      for (const vector of vectors) {
        expect(bytesToHex(addon.hash(hexToBytes(vector.input), portable)), vector.label).toBe(vector.output);
      }
    });

    it('matches cn/0, cn/1 and cn/2 (non-light)', () => {
      for (const vector of format.cn_slow_hash_other_variants) {
        const out = addon.slowHash(hexToBytes(vector.input), vector.variant, vector.light === 1, portable);
        expect(bytesToHex(out), vector.label).toBe(vector.output);
      }
    });
  });

  it('computes the four final hashes over a 200-byte state', () => {
    for (const vector of format.final_hashes.vectors) {
      const state = hexToBytes(vector.input);
      expect(state).toHaveLength(200);
      expect(bytesToHex(addon.finalHash(0, state))).toBe(vector.blake256);
      expect(bytesToHex(addon.finalHash(1, state))).toBe(vector.groestl256);
      expect(bytesToHex(addon.finalHash(2, state))).toBe(vector.jh256);
      expect(bytesToHex(addon.finalHash(3, state))).toBe(vector.skein512_256);
    }
  });

  it('computes cn_fast_hash (Keccak-256, original padding)', () => {
    for (const vector of format.cn_fast_hash.vectors) {
      expect(bytesToHex(addon.fastHash(hexToBytes(vector.input)))).toBe(vector.output);
    }
  });

  it('hashInto and hashBatch (hashed in pairs, odd counts included) agree with hash', () => {
    for (const count of [1, 2, 4, 5]) {
      const inputs = xmrig.vectors.slice(0, count).map(xmrigInput);
      const batch = addon.hashBatch(inputs);
      expect(batch.map((b) => bytesToHex(b))).toEqual(xmrig.vectors.slice(0, count).map((v) => v.result));
    }
    const inputs = xmrig.vectors.slice(0, 4).map(xmrigInput);
    const output = new Uint8Array(40).fill(0xee);
    addon.hashInto(inputs[0]!, output, true);
    expect(bytesToHex(output.subarray(0, 32))).toBe(xmrig.vectors[0]!.result);
    expect(output.subarray(32)).toEqual(new Uint8Array(8).fill(0xee));
  });

  it('hashes inputs of any length, including empty', () => {
    for (const length of [0, 1, 135, 136, 137, 300]) {
      const out = addon.hash(new Uint8Array(length));
      expect(out).toHaveLength(32);
      expect(bytesToHex(addon.hash(new Uint8Array(length), true))).toBe(bytesToHex(out));
    }
  });

  it('throws TypeError / RangeError on bad arguments instead of crashing', () => {
    const bad: unknown[] = ['00', 123, undefined, null, [1, 2, 3], new Uint16Array(4), new ArrayBuffer(76)];
    const untyped = addon as unknown as { [K in keyof NativeCnAddon]: (...args: unknown[]) => unknown };
    for (const value of bad) {
      expect(() => untyped.hash(value)).toThrow(TypeError);
      expect(() => untyped.hashInto(value, new Uint8Array(32))).toThrow(TypeError);
      expect(() => untyped.hashPair(value, new Uint8Array(76))).toThrow(TypeError);
      expect(() => untyped.hashPair(new Uint8Array(76), value)).toThrow(TypeError);
    }
    const input = new Uint8Array(76);
    expect(() => untyped.hash(input, 'yes')).toThrow(TypeError);
    expect(() => untyped.hashInto(input, new Uint8Array(31))).toThrow(RangeError);
    expect(() => untyped.hashBatch('x')).toThrow(TypeError);
    expect(() => untyped.hashBatch([input, 'x'])).toThrow(TypeError);
    expect(() => untyped.slowHash(input, 3, false)).toThrow(RangeError);
    expect(() => untyped.slowHash(new Uint8Array(42), 1, false)).toThrow(RangeError);
    expect(() => untyped.slowHash(input, '2', true)).toThrow(TypeError);
    expect(() => untyped.finalHash(4, new Uint8Array(200))).toThrow(RangeError);
    expect(() => untyped.finalHash(0, new Uint8Array(199))).toThrow(RangeError);
    expect(() => untyped.fastHash('')).toThrow(TypeError);
  });

  it('works in two worker_threads at once (context-aware addon)', async () => {
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const { createRequire } = require('node:module');
      const addon = createRequire(workerData.addonPath)(workerData.addonPath);
      const results = workerData.inputs.map((hex, i) => {
        const out = addon.hash(Buffer.from(hex, 'hex'), i % 2 === 1);
        return out.toString('hex');
      });
      parentPort.postMessage(results);
    `;
    const vectors = xmrig.vectors.slice(0, 24);
    const inputs = vectors.map((v) => bytesToHex(xmrigInput(v)));
    const runWorker = (part: string[]): Promise<string[]> =>
      new Promise((resolve, reject) => {
        const worker = new Worker(code, {
          eval: true,
          workerData: { addonPath: nativeAddonPath(), inputs: part },
        });
        worker.once('message', (message: string[]) => {
          resolve(message);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
    const [first, second] = await Promise.all([runWorker(inputs.slice(0, 12)), runWorker(inputs.slice(12))]);
    expect([...first!, ...second!]).toEqual(vectors.map((v) => v.result));
  });
});

describe.skipIf(skipNative)('loadNativeHasher', () => {
  const vector = format.cn_slow_hash_light1_variant2.vectors[0]!;

  it('returns a PowHasher named after the path it runs', () => {
    const fast = loadNativeHasher({ portable: false }, {});
    expect(fast.implementation).toBe(nativeHasAesNi() ? 'native' : 'native-portable');
    expect(bytesToHex(fast.hash(hexToBytes(vector.input)))).toBe(vector.output);
    const portable = loadNativeHasher({ portable: true }, {});
    expect(portable.implementation).toBe('native-portable');
    expect(bytesToHex(portable.hash(hexToBytes(vector.input)))).toBe(vector.output);
  });

  it('FUEGO_POW_FORCE_PORTABLE=1 forces the portable path', () => {
    const hasher = loadNativeHasher({ portable: false }, { FUEGO_POW_FORCE_PORTABLE: '1' });
    expect(hasher.implementation).toBe('native-portable');
    expect(bytesToHex(hasher.hash(hexToBytes(vector.input)))).toBe(vector.output);
  });
});

describe('native addon location and load errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuego-native-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the package root from src/ and points at build/Release', () => {
    const root = findPackageRoot();
    expect(nativeAddonPath()).toBe(join(root, 'build', 'Release', 'fuego_cn_upx2.node'));
  });

  it('throws NATIVE_POW_UNAVAILABLE for a missing file', () => {
    const path = join(dir, 'missing.node');
    expect(() => loadNativeAddon(path)).toThrow(NativePowUnavailableError);
    try {
      loadNativeAddon(path);
    } catch (error) {
      expect((error as NativePowUnavailableError).code).toBe('NATIVE_POW_UNAVAILABLE');
      expect((error as NativePowUnavailableError).data).toEqual({ path });
      // What the operator reads at start: where, and how to build it.
      expect((error as Error).message).toBe(
        `native cn/upx2 addon not found at ${path} (build it with \`npm run build:native\`)`,
      );
    }
  });

  it('throws NATIVE_POW_UNAVAILABLE for a file that is not an addon', () => {
    const path = join(dir, 'garbage.node');
    writeFileSync(path, 'not a shared object');
    expect(() => loadNativeAddon(path)).toThrow(expect.objectContaining({ code: 'NATIVE_POW_UNAVAILABLE' }));
    expect(() => loadNativeAddon(path)).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/^native cn\/upx2 addon at .+ failed to load: .+/),
        data: { path },
        cause: expect.any(Error),
      }),
    );
  });
});
