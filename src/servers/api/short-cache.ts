/**
 * Keeps each key's answer (its promise, so concurrent callers share one read) for `ttlMs`: a flood
 * of identical requests costs one read of the store. A failed read is not kept.
 */
export class ShortCache<T> {
  readonly #entries = new Map<string, { readonly atMs: number; readonly value: Promise<T> }>();
  readonly #ttlMs: number;
  readonly #clock: () => number;
  readonly #maxKeys: number;

  constructor(options: { readonly ttlMs: number; readonly clock: () => number; readonly maxKeys: number }) {
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
    this.#maxKeys = options.maxKeys;
  }

  get(key: string, read: () => Promise<T>): Promise<T> {
    const now = this.#clock();
    const hit = this.#entries.get(key);
    if (hit !== undefined && now - hit.atMs < this.#ttlMs) return hit.value;
    if (this.#entries.size >= this.#maxKeys) this.#dropExpired(now);
    if (this.#entries.size >= this.#maxKeys) this.#entries.clear();
    const value = read();
    this.#entries.set(key, { atMs: now, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    return value;
  }

  #dropExpired(now: number): void {
    for (const [key, entry] of this.#entries) if (now - entry.atMs >= this.#ttlMs) this.#entries.delete(key);
  }
}
