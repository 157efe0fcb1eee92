import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentsPageSchema } from '../../../src/servers/api/api-schemas.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';

const NOW = 1_800_000_000_000;
const keyPrefix = 'payments-reads';
const BATCHES = 30;

/** Batch n (1 newest .. 30 oldest): every third one failed or still prepared, the rest sent. */
function stateOf(n: number): 'sent' | 'failed' | 'prepared' {
  if (n % 3 !== 0) return 'sent';
  return n % 2 === 0 ? 'failed' : 'prepared';
}

const SENT_IDS = Array.from({ length: BATCHES }, (_, i) => i + 1)
  .filter((n) => stateOf(n) === 'sent')
  .map((n) => `b${n}`);

describe('payout list reads (issue 17 item 2)', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const keys = createPaymentKeys(keyPrefix);
    const multi = redis.multi();
    for (let n = 1; n <= BATCHES; n++) {
      const sent = stateOf(n) === 'sent';
      multi.zadd(keys.batches, NOW - n * 1000, `b${n}`);
      multi.hset(keys.batch(`b${n}`), {
        id: `b${n}`,
        state: stateOf(n),
        createdAtMs: String(NOW - n * 1000),
        updatedAtMs: String(NOW - n * 1000),
        transfers: '[]',
        totalDebit: '100',
        totalAmount: '90',
        networkFee: '10',
        ...(sent ? { txHash: n.toString(16).padStart(64, '0') } : {}),
      });
    }
    await multi.exec();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('pages over sent batches only: every sent batch exactly once, full pages', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const seen: string[] = [];
    const sizes: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const reply = await app.inject({ url: `/api/payments?page=${page}&limit=7` });
      const rows = paymentsPageSchema.parse(JSON.parse(reply.payload)).payments;
      sizes.push(rows.length);
      seen.push(...rows.map((row) => row.batchId));
    }
    expect(SENT_IDS).toHaveLength(20);
    expect(sizes).toEqual([7, 7, 6, 0]);
    expect(seen).toEqual(SENT_IDS);
    await app.close();
  });

  it('reads a page with one pipelined round trip for the hashes, never one HGETALL per batch', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const hgetall = vi.spyOn(redis, 'hgetall');
    const pipeline = vi.spyOn(redis, 'pipeline');
    const reply = await app.inject({ url: '/api/payments?page=1&limit=20' });
    expect(reply.statusCode).toBe(200);
    expect(hgetall).not.toHaveBeenCalled();
    expect(pipeline).toHaveBeenCalledTimes(1);
    await app.close();
  });

  it('answers 400 for a page past the readable window or a limit above 100', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    const pipeline = vi.spyOn(redis, 'pipeline');
    for (const url of ['/api/payments?page=11&limit=100', '/api/payments?page=1&limit=101']) {
      const reply = await app.inject({ url });
      expect(reply.statusCode, url).toBe(400);
      expect(JSON.parse(reply.payload).error.code).toBe('BAD_REQUEST');
    }
    expect(pipeline).not.toHaveBeenCalled();
    await app.close();
  });

  it('a flood of identical requests does one read; it is read again once the cache expired', async () => {
    let now = NOW;
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => now });
    const pipeline = vi.spyOn(redis, 'pipeline');
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => app.inject({ url: '/api/payments?page=2&limit=5' })),
    );
    expect(replies.every((reply) => reply.statusCode === 200)).toBe(true);
    await app.inject({ url: '/get_payments' });
    await app.inject({ url: '/get_payments' });
    const afterFlood = pipeline.mock.calls.length;
    // One read for the /api/payments page, one for /get_payments' list: the rest came from the cache.
    expect(afterFlood).toBe(2);
    now += 10_000;
    await app.inject({ url: '/api/payments?page=2&limit=5' });
    expect(pipeline.mock.calls.length).toBe(afterFlood + 1);
    await app.close();
  });

  it('a wall clock set back does not keep the cached page for the size of the jump', async () => {
    let now = NOW;
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => now });
    const pipeline = vi.spyOn(redis, 'pipeline');
    await app.inject({ url: '/api/payments?page=3&limit=5' });
    const read = pipeline.mock.calls.length;
    // NTP steps the clock back an hour: the entry now looks an hour in the future.
    now -= 3_600_000;
    await app.inject({ url: '/api/payments?page=3&limit=5' });
    expect(pipeline.mock.calls.length).toBe(read + 1);
    // The entry read after the jump is kept its 3 s, as any other.
    await app.inject({ url: '/api/payments?page=3&limit=5' });
    expect(pipeline.mock.calls.length).toBe(read + 1);
    await app.close();
  });

  it('/stats_address answers 400 for a value that is not an address, before any Redis or daemon call', async () => {
    const aliasOf = vi.fn(async () => null);
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW, modules: { aliasOf } });
    await app.ready();
    const good = fuegoAddress(1);
    const badChecksum = `${good.slice(0, -1)}${good.endsWith('a') ? 'b' : 'a'}`;
    const sendCommand = vi.spyOn(redis, 'sendCommand');
    for (const bad of ['x'.repeat(256), badChecksum, '@alias', 'fire@', 'a b']) {
      const reply = await app.inject({ url: `/stats_address?address=${encodeURIComponent(bad)}` });
      expect(reply.statusCode, bad).toBe(400);
      expect(JSON.parse(reply.payload).error.code).toBe('INVALID_ADDRESS');
    }
    expect(sendCommand).not.toHaveBeenCalled();
    expect(aliasOf).not.toHaveBeenCalled();
    const valid = await app.inject({ url: `/stats_address?address=${good}` });
    expect(valid.statusCode).toBe(200);
    expect(JSON.parse(valid.payload)).toEqual({ error: 'Not found' });
    expect(sendCommand).toHaveBeenCalled();
    await app.close();
  });

  it('/stats, /live_stats and /get_payments answer 400 for an address that does not decode, before any Redis call', async () => {
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    await app.ready();
    const sendCommand = vi.spyOn(redis, 'sendCommand');
    for (const route of ['/stats', '/live_stats', '/get_payments']) {
      const reply = await app.inject({ url: `${route}?address=${'y'.repeat(256)}` });
      expect(reply.statusCode, route).toBe(400);
      expect(JSON.parse(reply.payload).error.code, route).toBe('INVALID_ADDRESS');
    }
    expect(sendCommand).not.toHaveBeenCalled();
    await app.close();
  });
});
