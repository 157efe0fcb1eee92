import { describe, expect, it } from 'vitest';
import { FuegoPoolError } from '../../src/errors.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { type HasherSources, loadHasher } from '../../src/pow/load-hasher.js';
import { loadNativeHasher } from '../../src/pow/native.js';
import { typescriptHasher } from '../../src/pow/reference/cn-upx2.js';
import { PowSelfTestError, runSelfTest } from '../../src/pow/self-test.js';
import { SELF_TEST_VECTORS } from '../../src/pow/self-test-vectors.js';
import type { PowHasher, PowImplementationName } from '../../src/pow/types.js';
import { readJsonFixture } from '../helpers/fixtures.js';

interface FormatFixture {
  cn_slow_hash_light1_variant2: { vectors: { input: string; output: string; final_hash_index: number }[] };
}
interface XmrigFixture {
  vectors: { blob_sent: string; nonce: string; result: string }[];
}

/** A hasher that knows only the self-test answers (cheap), optionally with one of them wrong. */
function tableHasher(implementation: PowImplementationName, corruptIndex = -1): PowHasher {
  const table = new Map(
    SELF_TEST_VECTORS.map((v, i) => [v.inputHex, i === corruptIndex ? '00'.repeat(32) : v.hashHex]),
  );
  return {
    implementation,
    hash: (input) => hexToBytes(table.get(bytesToHex(input)) ?? 'ff'.repeat(32)),
  };
}

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

const silentLogger = { warn: () => {} };
// The addon is built by `npm ci`; FUEGO_POW_SKIP_NATIVE=1 opts out of the native cases.
const itNative = it.skipIf(process.env['FUEGO_POW_SKIP_NATIVE'] === '1');

describe('self-test vectors', () => {
  it('come from the fixture files and cover final-hash indices 0..3', () => {
    const format = readJsonFixture<FormatFixture>('vectors/format.json').cn_slow_hash_light1_variant2.vectors;
    const xmrig = readJsonFixture<XmrigFixture>('vectors/upx2-xmrig.json').vectors;
    const known = new Map(format.map((v) => [v.input, v.output]));
    for (const v of xmrig) known.set(v.blob_sent.slice(0, 78) + v.nonce + v.blob_sent.slice(86), v.result);
    for (const vector of SELF_TEST_VECTORS)
      expect(known.get(vector.inputHex), vector.label).toBe(vector.hashHex);
    const indices = new Set(
      format
        .filter((v) => SELF_TEST_VECTORS.some((s) => s.inputHex === v.input))
        .map((v) => v.final_hash_index),
    );
    expect([...indices].sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('runSelfTest', () => {
  it('passes the TypeScript implementation', () => {
    expect(() => runSelfTest(typescriptHasher)).not.toThrow();
  });

  itNative('passes the native implementations', () => {
    expect(() => runSelfTest(loadNativeHasher({ portable: false }))).not.toThrow();
    expect(() => runSelfTest(loadNativeHasher({ portable: true }))).not.toThrow();
  });

  it('fails with POW_SELF_TEST_FAILED when a hasher returns wrong bytes', () => {
    const wrong: PowHasher = { implementation: 'native', hash: () => new Uint8Array(32).fill(7) };
    const error = captureError(() => runSelfTest(wrong));
    expect(error).toBeInstanceOf(PowSelfTestError);
    expect((error as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
    expect((error as PowSelfTestError).data).toMatchObject({
      implementation: 'native',
      input: SELF_TEST_VECTORS[0]?.inputHex,
      expected: SELF_TEST_VECTORS[0]?.hashHex,
      actual: '07'.repeat(32),
    });
  });

  it('checks every vector, not just the first', () => {
    for (let i = 0; i < SELF_TEST_VECTORS.length; i++) {
      const error = captureError(() => runSelfTest(tableHasher('native-portable', i)));
      expect((error as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
      expect((error as PowSelfTestError).data['input']).toBe(SELF_TEST_VECTORS[i]?.inputHex);
    }
    expect(() => runSelfTest(tableHasher('native-portable'))).not.toThrow();
  });

  it('checks the paired path too: a wrong second hash of a pair fails', () => {
    const good = tableHasher('native');
    const wrongPair: PowHasher = {
      implementation: 'native',
      hash: good.hash,
      hashPair: (first, second) => {
        const out = new Uint8Array(64);
        out.set(good.hash(first), 0);
        out.set(
          good.hash(second).map((b) => b ^ 1),
          32,
        );
        return out;
      },
    };
    const error = captureError(() => runSelfTest(wrongPair));
    expect((error as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
    expect((error as PowSelfTestError).data['label']).toMatch(/hashPair second/);
    const rightPair: PowHasher = {
      ...wrongPair,
      hashPair: (first, second) => new Uint8Array([...good.hash(first), ...good.hash(second)]),
    };
    expect(() => runSelfTest(rightPair)).not.toThrow();
  });

  it('fails when a hasher throws or returns the wrong length', () => {
    const throwing: PowHasher = {
      implementation: 'typescript',
      hash: () => {
        throw new Error('boom');
      },
    };
    expect((captureError(() => runSelfTest(throwing)) as PowSelfTestError).data['actual']).toBe(
      'threw: boom',
    );
    const short: PowHasher = {
      implementation: 'typescript',
      hash: (input) => typescriptHasher.hash(input).slice(1),
    };
    expect((captureError(() => runSelfTest(short)) as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
  });
});

describe('loadHasher', () => {
  itNative('loads each real implementation, self-tested', () => {
    expect(loadHasher('native', silentLogger).implementation).toBe('native');
    expect(loadHasher('native-portable', silentLogger).implementation).toBe('native-portable');
    expect(loadHasher('typescript', silentLogger).implementation).toBe('typescript');
    expect(['native', 'native-portable']).toContain(loadHasher('auto', silentLogger).implementation);
  });

  it('auto: AES-NI build when the CPU has AES-NI, else the portable one', () => {
    for (const aesNi of [true, false]) {
      const asked: boolean[] = [];
      const sources: HasherSources = {
        nativeHasAesNi: () => aesNi,
        loadNative: ({ portable }) => {
          asked.push(portable);
          return tableHasher(portable ? 'native-portable' : 'native');
        },
        typescript: tableHasher('typescript'),
      };
      expect(loadHasher('auto', silentLogger, sources).implementation).toBe(
        aesNi ? 'native' : 'native-portable',
      );
      expect(asked).toEqual([!aesNi]);
    }
  });

  it('auto: falls back to TypeScript with a warning when the addon is unavailable', () => {
    const warnings: string[] = [];
    const sources: HasherSources = {
      nativeHasAesNi: () => true,
      loadNative: () => {
        throw new FuegoPoolError('NATIVE_POW_UNAVAILABLE', 'no build/Release/*.node');
      },
      typescript: tableHasher('typescript'),
    };
    const hasher = loadHasher('auto', { warn: (_obj, msg) => warnings.push(msg) }, sources);
    expect(hasher.implementation).toBe('typescript');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('native cn/upx2 addon not available (no build/Release/*.node)');
    expect(warnings[0]).toContain('TypeScript implementation');
  });

  it('does not fall back on other native errors, nor for an explicit native choice', () => {
    const unavailable = new FuegoPoolError('NATIVE_POW_UNAVAILABLE', 'missing');
    const sources: HasherSources = {
      nativeHasAesNi: () => true,
      loadNative: () => {
        throw unavailable;
      },
      typescript: tableHasher('typescript'),
    };
    expect(captureError(() => loadHasher('native', silentLogger, sources))).toBe(unavailable);
    const broken = new Error('segfault-ish');
    const brokenSources: HasherSources = {
      ...sources,
      loadNative: () => {
        throw broken;
      },
    };
    expect(captureError(() => loadHasher('auto', silentLogger, brokenSources))).toBe(broken);
  });

  it('throws POW_SELF_TEST_FAILED for a wrong native build, even under auto', () => {
    const sources: HasherSources = {
      nativeHasAesNi: () => true,
      loadNative: () => tableHasher('native', 3),
      typescript: tableHasher('typescript'),
    };
    for (const choice of ['auto', 'native'] as const) {
      const error = captureError(() => loadHasher(choice, silentLogger, sources));
      expect((error as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
      expect((error as PowSelfTestError).data['implementation']).toBe('native');
    }
  });
});
