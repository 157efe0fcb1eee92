import type { DecodedAddress } from '../fuego/address.js';
import { parseAddress } from './login.js';

/**
 * Remembers addresses that passed full validation. Checking the two public keys is ed25519 point
 * decompression, about 1.4 ms of event-loop time per login; miners reconnect with the same address
 * again and again (every 5 s while a pool restarts), so each address is checked once. Only valid
 * addresses are kept; invalid ones fail on the cheap checksum step before any key check.
 */
export class AddressCache {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, DecodedAddress>();

  constructor(maxEntries: number) {
    this.#maxEntries = Math.max(0, maxEntries);
  }

  /** Validates (or recalls) `text`; INVALID_LOGIN when it is no Fuego address. */
  decode(text: string): DecodedAddress {
    const known = this.#entries.get(text);
    if (known !== undefined) {
      // Refresh its place: the map's first keys are the least recently used.
      this.#entries.delete(text);
      this.#entries.set(text, known);
      return known;
    }
    const { decoded } = parseAddress(text);
    if (this.#maxEntries === 0) return decoded;
    this.#entries.set(text, decoded);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    return decoded;
  }

  get size(): number {
    return this.#entries.size;
  }
}
