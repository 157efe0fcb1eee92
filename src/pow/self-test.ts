import { FuegoPoolError } from '../errors.js';
import { bytesToHex, hexToBytes } from '../fuego/hex.js';
import { SELF_TEST_VECTORS, type SelfTestVector } from './self-test-vectors.js';
import type { PowHasher } from './types.js';

/**
 * A hasher produced a wrong cn/upx2 hash for a known vector (a miscompiled addon, a CPU feature
 * mismatch, a broken port). The pool must not verify a single share with it.
 * `data`: implementation, label, input, expected, actual (hex; `actual` is the thrown message
 * when the hasher threw instead of returning).
 */
export class PowSelfTestError extends FuegoPoolError<'POW_SELF_TEST_FAILED'> {
  constructor(data: {
    implementation: string;
    label: string;
    input: string;
    expected: string;
    actual: string;
  }) {
    super(
      'POW_SELF_TEST_FAILED',
      `cn/upx2 self-test failed for the ${data.implementation} implementation on "${data.label}": ` +
        `expected ${data.expected}, got ${data.actual}`,
      data,
    );
  }
}

/**
 * Hashes every vector with `hasher` and throws PowSelfTestError on the first mismatch.
 * Synchronous and CPU-bound: run it in a worker thread or at CLI start, not on the pool's event loop.
 */
export function runSelfTest(hasher: PowHasher, vectors: readonly SelfTestVector[] = SELF_TEST_VECTORS): void {
  vectors.forEach((vector, i) => {
    const input = hexToBytes(vector.inputHex);
    checkVector(hasher, vector, 'hash', () => hasher.hash(input));
    // The paired path is a separate code path: check it too, each vector beside its neighbour.
    const partner = vectors[(i + 1) % vectors.length];
    if (hasher.hashPair && partner) {
      let pair: Uint8Array | undefined;
      const pairHashes = (): Uint8Array => {
        pair ??= hasher.hashPair!(input, hexToBytes(partner.inputHex));
        return pair;
      };
      checkVector(hasher, vector, 'hashPair first', () => pairHashes().subarray(0, 32));
      checkVector(hasher, partner, 'hashPair second', () => pairHashes().subarray(32, 64));
    }
  });
}

function checkVector(hasher: PowHasher, vector: SelfTestVector, path: string, run: () => Uint8Array): void {
  let actual: string;
  try {
    const hash = run();
    actual = hash.length === 32 ? bytesToHex(hash) : `${bytesToHex(hash)} (${hash.length} bytes)`;
  } catch (error) {
    actual = `threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (actual !== vector.hashHex) {
    throw new PowSelfTestError({
      implementation: hasher.implementation,
      label: path === 'hash' ? vector.label : `${vector.label} (${path})`,
      input: vector.inputHex,
      expected: vector.hashHex,
      actual,
    });
  }
}
