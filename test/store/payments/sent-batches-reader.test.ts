import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
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
