import type { PowHasher } from '../types.js';
import { cnSlowHash } from './cn-slow-hash.js';

/**
 * cn/upx2 (Fuego block major ≥ 9, XMRig `cn/upx2`): CryptoNight variant 2, light, with the
 * reversed chunk shuffle (spec §7.2). Returns the 32-byte proof-of-work hash of `input`
 * (the 76-byte parent-block hashing blob for shares).
 */
export function cnUpx2(input: Uint8Array): Uint8Array {
  return cnSlowHash(input, { variant: 2, light: true });
}

/**
 * Pure TypeScript cn/upx2 hasher: the fallback when the native addon is unavailable, and the
 * oracle the other implementations are tested against. About 7× slower than one native hash.
 */
export const typescriptHasher: PowHasher = {
  implementation: 'typescript',
  hash: cnUpx2,
};
