import { keccak_256 } from '@noble/hashes/sha3.js';

/**
 * CryptoNote's `cn_fast_hash`: Keccak-256 with the original Keccak padding (0x01 .. 0x80),
 * which is not FIPS SHA3-256. Returns 32 bytes.
 */
export function cnFastHash(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/**
 * A `cn_fast_hash` implementation. The pure one above is the default everywhere; the pool may pass
 * a faster one with the same output (the native addon's) where hashing is hot, e.g. job building.
 */
export type FastHash = ((data: Uint8Array) => Uint8Array) & {
  /** The same hash written to `out[offset..offset+31]` instead of a new array (saves an allocation). */
  readonly into?: (data: Uint8Array, out: Uint8Array, offset: number) => void;
  /**
   * A chain of hashes over `work` in place (see HashChainPlan in job-work.ts), then
   * `work[from, from + out.length)` copied to `out`: all of a job's hashes in one call.
   */
  readonly chain?: (work: Uint8Array, steps: Uint32Array, out: Uint8Array, from: number) => void;
};

/** keccak(a ‖ b) for two 32-byte nodes, the step of the transaction merkle tree. */

export function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  return keccak_256.create().update(left).update(right).digest();
}
