import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createHashrateKeys } from '../../../src/store/hashrate/hashrate-keys.js';
import { RedisRecentMiners } from '../../../src/store/hashrate/recent-miners-reader.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';

async function readAll(reader: RedisRecentMiners, query: Parameters<RedisRecentMiners['pages']>[0]) {
  const pages: string[][] = [];
  for await (const page of reader.pages(query)) pages.push([...page]);
  return pages;
}

describe('RedisRecentMiners: the miners with a recent share, newest first, in pages', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('pages by score without losing or repeating members that share a score across a page boundary', async () => {
    const keyPrefix = 'recent1';
    const { activeMiners } = createHashrateKeys(keyPrefix);
    // m0..m9: scores 1000, 900, then 800 x5 (ties straddling pages of 3), 700, 600, 100 (too old).
    const scores = [1000, 900, 800, 800, 800, 800, 800, 700, 600, 100];
    await redis.zadd(activeMiners, ...scores.flatMap((score, n) => [score, `m${n}`]));
    const reader = new RedisRecentMiners({ keyPrefix }, { redis });

    const pages = await readAll(reader, { sinceMs: 500, maxCount: 100, pageSize: 3 });
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3]);
    const all = pages.flat();
    expect(all.slice(0, 2)).toEqual(['m0', 'm1']);
    expect([...all.slice(2, 7)].sort()).toEqual(['m2', 'm3', 'm4', 'm5', 'm6']);
    expect(all.slice(7)).toEqual(['m7', 'm8']);

    // At most maxCount, the newest; an empty index reads as nothing.
    expect((await readAll(reader, { sinceMs: 0, maxCount: 4, pageSize: 3 })).flat()).toHaveLength(4);
    expect((await readAll(reader, { sinceMs: 0, maxCount: 4, pageSize: 3 })).flat().slice(0, 2)).toEqual([
      'm0',
      'm1',
    ]);
    const empty = new RedisRecentMiners({ keyPrefix: 'recent-empty' }, { redis });
    expect(await readAll(empty, { sinceMs: 0, maxCount: 10, pageSize: 3 })).toEqual([]);
  });

  it('a whole page of one score is passed over exactly', async () => {
    const keyPrefix = 'recent2';
    const { activeMiners } = createHashrateKeys(keyPrefix);
    await redis.zadd(activeMiners, ...Array.from({ length: 7 }, (_, n) => [5000, `t${n}`]).flat());
    const reader = new RedisRecentMiners({ keyPrefix }, { redis });
    const all = (await readAll(reader, { sinceMs: 0, maxCount: 100, pageSize: 2 })).flat();
    expect([...all].sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
  });
});
