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
  for (const vector of vectors) {
    const input = hexToBytes(vector.inputHex);
    let actual: string;
    try {
      const hash = hasher.hash(input);
      actual = hash.length === 32 ? bytesToHex(hash) : `${bytesToHex(hash)} (${hash.length} bytes)`;
    } catch (error) {
      actual = `threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (actual !== vector.hashHex) {
      throw new PowSelfTestError({
        implementation: hasher.implementation,
        label: vector.label,
        input: vector.inputHex,
        expected: vector.hashHex,
        actual,
      });
    }
  }
}
