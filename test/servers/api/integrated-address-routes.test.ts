import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { decodeAddress, encodeIntegratedAddress } from '../../../src/fuego/address.js';
import { minerSchema, minerWorkersSchema } from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress } from './api-fixtures.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const keys = decodeAddress(fuegoAddress(41));
/** An exchange deposit address: the miner's keys and a payment id (186 characters). */
const INTEGRATED = encodeIntegratedAddress({
  spendPublicKey: keys.spendPublicKey,
  viewPublicKey: keys.viewPublicKey,
  paymentId: 'ab'.repeat(32),
});

/**
 * Stratum accepts an integrated address as the login and credits it as given, so its miner has a
 * page, workers, exports and a threshold under that address like any other.
 */
describe('the miner routes of an integrated address', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('answer for the address, not 404 "no such resource" (the route was never matched)', async () => {
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
