import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classicStatsSchema } from '../../../src/servers/api/api-schemas.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { type SeededBatch, seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, silentLogger } from './api-fixtures.js';

const NOW = 1_800_000_000_000;
const keyPrefix = 'get-payments-time';
const BATCHES = 1_200;
const CLASSIC_ROWS = 30;

/** Batch n (1 newest): created n minutes ago, sent a second later; every tenth one failed. */
function batch(n: number): SeededBatch {
  const createdAtMs = NOW - n * 60_000;
  const sent = n % 10 !== 0;
  return {
    id: `b${n}`,
    state: sent ? 'sent' : 'failed',
    createdAtMs,
    updatedAtMs: createdAtMs + 1_000,
    ...(sent ? { txHash: n.toString(16).padStart(64, '0') } : {}),
  };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The classic reply for the sent batches from n on: `tx:amount:fee:0:recipients`, time in seconds. */
function expectedFrom(first: number): (string | number)[] {
  const rows: (string | number)[] = [];
  for (let n = first; n <= BATCHES && rows.length < 2 * CLASSIC_ROWS; n++) {
    const row = batch(n);
    if (row.state === 'sent') rows.push(`${row.txHash}:90:10:0:0`, seconds(row.updatedAtMs));
  }
  return rows;
}

describe('/get_payments?time= over more batches than one read (classic API)', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    await seedPayoutBatches(
      redis,
      keyPrefix,
      Array.from({ length: BATCHES }, (_, i) => batch(i + 1)),
    );
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('without time, or a time among the newest batches: the same reply as before', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const newest = await app.inject({ url: '/get_payments' });
    expect(newest.payload).toBe(JSON.stringify(expectedFrom(1)));
    // Batch 5 was sent at exactly this second: "before" leaves it out.
    const time = seconds(batch(5).updatedAtMs);
    const older = await app.inject({ url: `/get_payments?time=${time}` });
    expect(older.payload).toBe(JSON.stringify(expectedFrom(6)));
    await app.close();
  });

  it('a time older than the newest 1,000 batches answers the sent batches before it', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const time = seconds(batch(1_100).updatedAtMs);
    const reply = await app.inject({ url: `/get_payments?time=${time}` });
    expect(reply.statusCode).toBe(200);
    expect(expectedFrom(1_101)).toHaveLength(2 * CLASSIC_ROWS);
    expect(reply.payload).toBe(JSON.stringify(expectedFrom(1_101)));
    const none = await app.inject({ url: `/get_payments?time=${seconds(batch(BATCHES).createdAtMs)}` });
    expect(JSON.parse(none.payload)).toEqual([]);
    await app.close();
  });

  it('/stats counts every sent batch in totalPayments, not only the 30 it lists', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const stats = classicStatsSchema.parse((await app.inject({ url: '/stats' })).json());
    expect(stats.pool.payments).toHaveLength(2 * CLASSIC_ROWS);
    // Classic front ends show it as "Total payments": 1,080 sent (every tenth of 1,200 failed).
    expect(stats.pool.totalPayments).toBe(BATCHES - BATCHES / 10);
    await app.close();
  });
});
