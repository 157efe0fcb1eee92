/**
 * Keeps each key's answer (its promise, so concurrent callers share one read) for `ttlMs`: a flood
 * of identical requests costs one read of the store. A failed read is not kept, nor an entry
 * stamped after the clock's now (the wall clock was set back: it would stay fresh for the jump).
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
    if (hit !== undefined && this.#fresh(hit.atMs, now)) return hit.value;
    if (this.#entries.size >= this.#maxKeys) this.#dropExpired(now);
    if (this.#entries.size >= this.#maxKeys) this.#entries.clear();
    const value = read();
    this.#entries.set(key, { atMs: now, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    return value;
  }

  #fresh(atMs: number, now: number): boolean {
    return now >= atMs && now - atMs < this.#ttlMs;
  }

  #dropExpired(now: number): void {
    for (const [key, entry] of this.#entries) if (!this.#fresh(entry.atMs, now)) this.#entries.delete(key);
  }
}
