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
}
