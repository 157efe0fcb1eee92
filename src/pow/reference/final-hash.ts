import { blake256 } from '@noble/hashes/blake1.js';
import { groestl256 } from './groestl256.js';
import { jh256 } from './jh256.js';
import { skein512_256 } from './skein512-256.js';

/** The four CryptoNight final hashes, indexed by `state[0] & 3`. */
export const FINAL_HASH_FUNCTIONS: readonly ((data: Uint8Array) => Uint8Array)[] = [
  (data) => blake256(data),
  groestl256,
  jh256,
  skein512_256,
];

/**
 * CryptoNight's last step (spec §7.2 step 6): the low two bits of the first state byte pick
 * BLAKE-256 (0), Grøstl-256 (1), JH-256 (2) or Skein-512-256 (3), run over the whole 200-byte
 * Keccak state; its 32-byte digest is the proof-of-work hash.
 */
export function finalHash(state: Uint8Array): Uint8Array {
  return FINAL_HASH_FUNCTIONS[state[0]! & 3]!(state);
}
