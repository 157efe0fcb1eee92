import { describe, expect, it } from 'vitest';
import { ShortCache } from '../../../src/servers/api/short-cache.js';

describe('ShortCache', () => {
  it('shares one read per key within the ttl, reads again after it, and does not keep a failure', async () => {
    let now = 0;
    let reads = 0;
    const cache = new ShortCache<number>({ ttlMs: 3_000, clock: () => now, maxKeys: 10 });
    const read = async () => ++reads;
    expect(await Promise.all([cache.get('a', read), cache.get('a', read)])).toEqual([1, 1]);
    now = 2_999;
    expect(await cache.get('a', read)).toBe(1);
    now = 3_000;
    expect(await cache.get('a', read)).toBe(2);
    await expect(cache.get('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await Promise.resolve();
    expect(await cache.get('b', read)).toBe(3);
  });

  it('reads again when the clock went back past an entry (an entry from the future is not fresh)', async () => {
    let now = 10_000;
    let reads = 0;
    const cache = new ShortCache<number>({ ttlMs: 3_000, clock: () => now, maxKeys: 10 });
    const read = async () => ++reads;
    expect(await cache.get('a', read)).toBe(1);
    now = 9_999;
    expect(await cache.get('a', read)).toBe(2);
    expect(await cache.get('a', read)).toBe(2);
  });

  it('holds at most maxKeys entries', async () => {
    let reads = 0;
    const cache = new ShortCache<number>({ ttlMs: 60_000, clock: () => 0, maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, async () => ++reads);
    // 'd' found the cache full of live entries and emptied it, so 'a' is read again.
    expect(await cache.get('a', async () => ++reads)).toBe(5);
  });
});
