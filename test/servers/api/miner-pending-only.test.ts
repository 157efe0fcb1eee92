import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { minerSchema } from '../../../src/servers/api/api-schemas.js';
import { PendingCredits } from '../../../src/store/shares/pending-credits.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress } from './api-fixtures.js';

const MINER = fuegoAddress(31);

/**
 * A miner whose only record is a pending credit: on a small pool the PPLNS window reaches further
 * back than the 24 h of hashrate statistics, so a block found today can credit shares of a miner
 * who stopped two days ago, and until the block is confirmed (60 blocks, ~8 h) the pending credit
 * is all the pool holds of them.
 */
describe('a miner with only a pending credit', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('GET /api/miners/:address shows the pending credit instead of 404 "no record"', async () => {
    const keyPrefix = 'api-pending-only';
    const blockHash = 'cd'.repeat(32);
    await redis.zadd(createShareKeys(keyPrefix).blockCandidates, 995, blockHash);
    await new PendingCredits({ keyPrefix }, { redis }).write(
      blockHash,
      new Map([[MINER, 5_000_000n]]),
      3_600_000,
    );
    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      const reply = await app.inject({ url: `/api/miners/${MINER}` });
      expect(reply.statusCode).toBe(200);
      const miner = minerSchema.parse(reply.json());
      expect(miner.balance?.pendingAtomic).toBe('5000000');
      expect(miner.workers).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
