import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createApiStores } from '../../../src/app/api-stores.js';
import { decodeAddress, encodeIntegratedAddress } from '../../../src/fuego/address.js';
import { minerSchema, minerWorkersSchema } from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { PendingCredits } from '../../../src/store/shares/pending-credits.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, TEST_STORE_LIMITS } from './api-fixtures.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const keys = decodeAddress(fuegoAddress(41));
/** An exchange deposit address: the miner's keys and a payment id (186 characters). */
const INTEGRATED = encodeIntegratedAddress({
  spendPublicKey: keys.spendPublicKey,
  viewPublicKey: keys.viewPublicKey,
  paymentId: 'ab'.repeat(32),
});

/** Miners the pool holds something of, who must reach their page rather than a 404. */
describe("a miner's page", () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /*
   * On a small pool the PPLNS window reaches further back than the 24 h of hashrate statistics,
   * so a block found today can credit shares of a miner who stopped two days ago, and until the
   * block is confirmed (60 blocks, ~8 h) the pending credit is all the pool holds of them.
   */
  it('GET /api/miners/:address shows a pending credit, the only record, instead of 404 "no record"', async () => {
    const keyPrefix = 'api-pending-only';
    const miner = fuegoAddress(31);
    const blockHash = 'cd'.repeat(32);
    await redis.zadd(createShareKeys(keyPrefix).blockCandidates, 995, blockHash);
    await new PendingCredits({ keyPrefix }, { redis }).write(
      blockHash,
      new Map([[miner, 5_000_000n]]),
      3_600_000,
    );
    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      const reply = await app.inject({ url: `/api/miners/${miner}` });
      expect(reply.statusCode).toBe(200);
      const view = minerSchema.parse(reply.json());
      expect(view.balance?.pendingAtomic).toBe('5000000');
      expect(view.workers).toEqual([]);
    } finally {
      await app.close();
    }
  });

  // A miner may set their threshold before their rigs send a share (POST answers 200 and shows it).
  it('GET /api/miners/:address shows a stored payout threshold, the only record, instead of 404 "no record"', async () => {
    const keyPrefix = 'api-threshold-only';
    const miner = fuegoAddress(32);
    const stores = createApiStores(keyPrefix, redis, TEST_STORE_LIMITS);
    expect(await stores.thresholds.write(miner, 250_000_000n, 1_750_000_000)).toBe(true);
    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      const reply = await app.inject({ url: `/api/miners/${miner}` });
      expect(reply.statusCode).toBe(200);
      const view = minerSchema.parse(reply.json());
      expect(view.payoutThreshold).toMatchObject({ thresholdAtomic: '250000000', custom: true });
      expect(view.workers).toEqual([]);
    } finally {
      await app.close();
    }
  });

  // Stratum accepts an integrated address as the login and credits it as given.
  it('the miner routes of an integrated address answer for it, not 404 "no such resource" (no route matched)', async () => {
    const keyPrefix = 'api-integrated';
    const share = {
      address: INTEGRATED,
      worker: 'rig',
      difficulty: 6_000,
      height: 990,
      solo: false,
      stale: false,
    };
    await new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 50 }, { redis }).record([
      { ...share, timestampMs: NOW - 60_000 },
    ]);
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    try {
      expect(INTEGRATED.length).toBeGreaterThan(100);
      const miner = await app.inject({ url: `/api/miners/${INTEGRATED}` });
      expect(miner.statusCode).toBe(200);
      expect(minerSchema.parse(miner.json()).address).toBe(INTEGRATED);
      const workers = await app.inject({ url: `/api/miners/${INTEGRATED}/workers` });
      expect(workers.statusCode).toBe(200);
      expect(minerWorkersSchema.parse(workers.json()).workers.map((w) => w.name)).toEqual(['rig']);
      for (const path of ['payments', 'payments.csv', 'rewards.json']) {
        expect((await app.inject({ url: `/api/miners/${INTEGRATED}/${path}` })).statusCode).toBe(200);
      }
      // The threshold route reads the body: a bad one is BAD_REQUEST, once the route is matched.
      const threshold = await app.inject({
        method: 'POST',
        url: `/api/miners/${INTEGRATED}/threshold`,
        payload: {},
      });
      expect(threshold.json().error.code).toBe('BAD_REQUEST');
    } finally {
      await app.close();
    }
  });
});
