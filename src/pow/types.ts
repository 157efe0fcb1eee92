/** Names of the cn/upx2 implementations, fastest first. */
export type PowImplementationName = 'native' | 'native-portable' | 'typescript';

/**
 * One cn/upx2 implementation (Fuego block major version >= 9 proof of work, XMRig's `cn/upx2`).
 * `hash` is synchronous and slow (~0.3 ms native, tens of ms in TypeScript): call it only from
 * a verifier worker thread or a CLI, never on the pool's event loop.
 */
export interface PowHasher {
  readonly implementation: PowImplementationName;
  /** Returns the 32-byte hash of `input` (any length; shares are 76 bytes). */
  hash(input: Uint8Array): Uint8Array;
  /**
   * Hashes two inputs at once and returns both hashes (64 bytes: `first`'s, then `second`'s).
   * Present when the implementation is faster that way (the native addon interleaves the two main
   * loops, ~1.5× the throughput of two single calls); the verifier workers pair up their shares.
   */
  hashPair?(first: Uint8Array, second: Uint8Array): Uint8Array;
}
