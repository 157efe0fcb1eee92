import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { type SeededBatch, seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';

const keyPrefix = 'sent-batches';
const BATCHES = 250;
const isSent = (n: number) => n % 4 !== 0 && n % 7 !== 0;

describe('PayoutStore.listSentBatches', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, createLogger({ level: 'silent' }));
    const keys = createPaymentKeys(keyPrefix);
    const multi = redis.multi();
    for (let n = 1; n <= BATCHES; n++) {
      multi.zadd(keys.batches, 1_000_000 - n, `b${n}`);
      multi.hset(keys.batch(`b${n}`), {
        id: `b${n}`,
        state: isSent(n) ? 'sent' : n % 2 === 0 ? 'failed' : 'sending',
        transfers: '[]',
        totalDebit: '1',
        totalAmount: '1',
        networkFee: '0',
        ...(isSent(n) ? { txHash: 'ab'.repeat(32) } : {}),
      });
    }
    await multi.exec();
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('pages across scan chunks: every sent batch once, newest first, full pages', async () => {
    const store = new PayoutStore({ keyPrefix }, { redis });
    const sentIds = Array.from({ length: BATCHES }, (_, i) => i + 1)
      .filter(isSent)
      .map((n) => `b${n}`);
    const pages: string[][] = [];
    for (let offset = 0; offset <= sentIds.length; offset += 45) {
      pages.push((await store.listSentBatches({ offset, limit: 45 })).map((batch) => batch.id));
    }
    expect(pages.flat()).toEqual(sentIds);
    expect(pages.slice(0, -1).every((page) => page.length === 45)).toBe(true);
  });
});

describe('PayoutStore.listSentBatchesBefore', () => {
  const BASE_MS = 1_800_000_000_000;
  const MANY = 1_300;
  /** Sent at creation + 10 ms, except batch 1105, updated (confirmed) long after. */
  const LATE = 1_105;
  const batch = (n: number): SeededBatch => {
    const createdAtMs = BASE_MS - n * 1000;
    const sent = isSent(n);
    return {
      id: `b${n}`,
      state: sent ? 'sent' : n % 2 === 0 ? 'failed' : 'sending',
      createdAtMs,
      updatedAtMs: n === LATE ? BASE_MS : createdAtMs + 10,
      ...(sent ? { txHash: 'cd'.repeat(32) } : {}),
    };
  };
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, createLogger({ level: 'silent' }));
    await seedPayoutBatches(
      redis,
      'sent-before',
      Array.from({ length: MANY }, (_, i) => batch(i + 1)),
    );
    // 1,050 failed batches, then 10 sent ones older than all of them.
    await seedPayoutBatches(
      redis,
      'sent-before-bound',
      Array.from({ length: 1_060 }, (_, i) => ({
        id: `f${i}`,
        state: i < 1_050 ? 'failed' : 'sent',
        createdAtMs: BASE_MS - i,
        updatedAtMs: BASE_MS - i,
        txHash: 'ef'.repeat(32),
      })),
    );
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('a time older than the newest 1,000 batches: the sent batches before it, newest first', async () => {
    const store = new PayoutStore({ keyPrefix: 'sent-before' }, { redis });
    const beforeMs = batch(1_100).updatedAtMs;
    const expected = Array.from({ length: MANY - 1_100 }, (_, i) => 1_101 + i)
      .filter((n) => isSent(n) && n !== LATE)
      .slice(0, 40)
      .map((n) => `b${n}`);
    expect(expected).toHaveLength(40);
    const batches = await store.listSentBatchesBefore(beforeMs, 40);
    expect(batches.map((row) => row.id)).toEqual(expected);
    expect(batches.every((row) => row.updatedAtMs < beforeMs)).toBe(true);
    expect(await store.listSentBatchesBefore(batch(MANY).createdAtMs, 40)).toEqual([]);
  });

  it('a time after every batch: the same batches as the first page', async () => {
    const store = new PayoutStore({ keyPrefix: 'sent-before' }, { redis });
    const newest = await store.listSentBatches({ offset: 0, limit: 45 });
    expect(await store.listSentBatchesBefore(Number.MAX_SAFE_INTEGER, 45)).toEqual(newest);
  });

  it('looks at 1,000 batches at most, 100 per round trip, sent or not', async () => {
    const store = new PayoutStore({ keyPrefix: 'sent-before-bound' }, { redis });
    const ranges = vi.spyOn(redis, 'zrevrangebyscore');
    const pipelines = vi.spyOn(redis, 'pipeline');
    expect(await store.listSentBatchesBefore(BASE_MS + 1, 30)).toEqual([]);
    expect(ranges).toHaveBeenCalledTimes(10);
    expect(pipelines).toHaveBeenCalledTimes(10);
  });
});
