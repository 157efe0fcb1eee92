import type { DecodedAddress } from '../fuego/address.js';
import { parseAddress } from './login.js';

/**
 * Remembers the outcome of full address validation. Checking the two public keys is ed25519 point
 * decompression, about 1.4 ms of event-loop time per login; miners reconnect with the same address
 * again and again (every 5 s while a pool restarts), so each address is checked once. Refused
 * addresses are remembered too: one with a valid checksum and a bad key costs the full check, and
 * a client repeating it must not make the pool pay again. Each outcome is kept in its own LRU map
 * of at most `maxEntries`.
 */
export class AddressCache {
  readonly #maxEntries: number;
  readonly #valid = new Map<string, DecodedAddress>();
  readonly #refused = new Map<string, unknown>();

  constructor(maxEntries: number) {
    this.#maxEntries = Math.max(0, maxEntries);
  }

  /**
   * Validates (or recalls) `text`; INVALID_LOGIN when it is no Fuego address. The caller charges
   * and schedules the costly check of an address it does not `know` (PoolBackend).
   */
  decode(text: string): DecodedAddress {
    const known = recall(this.#valid, text);
    if (known !== undefined) return known;
    const refusal = recall(this.#refused, text);
    if (refusal !== undefined) throw refusal;
    try {
      const { decoded } = parseAddress(text);
      remember(this.#valid, text, decoded, this.#maxEntries);
      return decoded;
    } catch (error) {
      remember(this.#refused, text, error, this.#maxEntries);
      throw error;
    }
  }

  /**
   * Remembers `text` as valid, decoded by someone the pool trusts (address-warmup.ts: the pool's
   * own Redis), without a check here; an address known already (valid or refused) is left as it
   * is. Remembered as the most recently used: give the least recent first.
   */
  trust(text: string, decoded: DecodedAddress): void {
    if (this.knows(text)) return;
    remember(this.#valid, text, decoded, this.#maxEntries);
  }

  /** Whether `text` was checked already (valid or refused): decoding it costs nothing then. */
  knows(text: string): boolean {
    return this.#valid.has(text) || this.#refused.has(text);
  }

  get size(): number {
    return this.#valid.size;
  }
}

/** The value of `key`, refreshed as the most recently used. */
function recall<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value === undefined) return undefined;
  map.delete(key);
  map.set(key, value);
  return value;
}

function remember<V>(map: Map<string, V>, key: string, value: V, maxEntries: number): void {
  if (maxEntries === 0) return;
  map.set(key, value);
  if (map.size > maxEntries) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}
