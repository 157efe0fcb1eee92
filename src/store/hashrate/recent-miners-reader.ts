import type { Redis } from 'ioredis';
import type { RecentMinerAddresses, RecentMinersQuery } from '../../model/recent-miners.js';
import { runStoreCommand } from '../store-error.js';
import { createHashrateKeys, type HashrateKeys } from './hashrate-keys.js';

/**
 * Reads the active-miners ZSET (`<p>:hashrate:active:miners`, address scored by its last share,
 * pruned to the minute retention: hashrate-keys.ts) newest first, a page per ZREVRANGEBYSCORE:
 * bounded reads of an index the share batches keep anyway, never KEYS or a SCAN of miner hashes.
 *
 * Pages follow a score cursor rather than an offset into the whole set: a miner whose share
 * moves it to the top meanwhile does not shift the pages still to come. Each page starts at the
 * previous page's lowest score, past the members with that score already returned.
 */
export class RedisRecentMiners implements RecentMinerAddresses {
  readonly #redis: Redis;
  readonly #keys: HashrateKeys;

  constructor(options: { readonly keyPrefix: string }, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createHashrateKeys(options.keyPrefix);
  }

  async *pages(query: RecentMinersQuery): AsyncIterable<readonly string[]> {
    const pageSize = Math.max(1, Math.floor(query.pageSize));
    let remaining = Math.max(0, Math.floor(query.maxCount));
    let max = '+inf';
    let skipAtMax = 0;
    while (remaining > 0) {
      const count = Math.min(pageSize, remaining);
      const flat = await runStoreCommand('recentMiners', () =>
        this.#redis.zrevrangebyscore(
          this.#keys.activeMiners,
          max,
          String(query.sinceMs),
          'WITHSCORES',
          'LIMIT',
          skipAtMax,
          count,
        ),
      );
      const addresses: string[] = [];
      let lowest = max;
      let atLowest = 0;
      for (let index = 0; index + 1 < flat.length; index += 2) {
        addresses.push(flat[index]!);
        const score = flat[index + 1]!;
        atLowest = score === lowest ? atLowest + 1 : 1;
        lowest = score;
      }
      if (addresses.length === 0) return;
      yield addresses;
      remaining -= addresses.length;
      if (addresses.length < count) return;
      skipAtMax = lowest === max ? skipAtMax + atLowest : atLowest;
      max = lowest;
    }
  }
}
