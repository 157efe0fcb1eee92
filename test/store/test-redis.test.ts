import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

describe('private test Redis', () => {
  let redis: TestRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
  });

  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  it('runs on its own loopback port; amounts past 2^53 stay exact when read as strings', async () => {
    expect(redis.port).toBeGreaterThan(0);
    await client.set('{fuego}:probe', '9007199254740993');
    await client.incrby('{fuego}:probe', 2);
    // ioredis turns integer replies into JS numbers; money must be read back as strings -> bigint.
    expect(BigInt((await client.get('{fuego}:probe')) ?? '')).toBe(9007199254740995n);
  });
});
