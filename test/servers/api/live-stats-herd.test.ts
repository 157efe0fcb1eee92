import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { classicStatsSchema } from '../../../src/servers/api/api-schemas.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress } from './api-fixtures.js';

/** Commands Redis has run so far (INFO commandstats), INFO itself left out. */
async function commandsRun(redis: Redis): Promise<number> {
  const text = await redis.info('commandstats');
  let total = 0;
  for (const match of text.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') total += Number(match[2]);
  }
  return total;
}

/*
 * A classic front end keeps one /live_stats request waiting per open page. All of them are
 * answered by the same feed tick: a thousand viewers must not make that tick a thousand reads of
 * the pool's statistics from the Redis that records the shares.
 */
describe('/live_stats waiters released by one tick', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('share one read of the pool statistics; only each miner part is read per request', async () => {
    const { app } = await buildTestApi({
      redis,
      keyPrefix: 'live-stats-herd',
      options: { classicApi: true, feedIntervalMs: 600_000 },
    });
    const waitAll = async (count: number, address?: string) => {
      const query = address === undefined ? '' : `?address=${address}`;
      const pending = Array.from({ length: count }, (_, i) =>
        app.inject({ url: `/live_stats${query}`, remoteAddress: `198.51.100.${i + 1}` }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = await commandsRun(redis);
      await app.pool.liveFeed.tick();
      const replies = await Promise.all(pending);
      for (const reply of replies) classicStatsSchema.parse(reply.json());
      return (await commandsRun(redis)) - before;
    };
    try {
      await app.ready();
      const one = await waitAll(1);
      const many = await waitAll(40);
      expect(one).toBeGreaterThan(0);
      expect(many).toBeLessThanOrEqual(one + 2);
      // With an address, the miner's hashrate is one more read per request, not the whole page.
      const miners = await waitAll(40, fuegoAddress(5));
      expect(miners).toBeLessThanOrEqual(one + 2 + 40 * 2);
    } finally {
      await app.close();
    }
  });
});
