import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { silentLogger } from '../../store/store-fixtures.js';

const keyPrefix = 'unmined-notified-mark';

/**
 * mark_unmined_notified on a real Redis: the marker that a payout-unmined notification was sent
 * for a sent batch, so it is sent at most once across restarts and failovers. Fenced by the
 * leader's token and the payout lock like every payout script; only a watched sent batch is
 * marked, and the first mark is kept (true once, then false).
 */
describe('PayoutStore.markUnminedNotified', () => {
  let server: TestRedis;
  let redis: Redis;
  let store: PayoutStore;
  const keys = createPaymentKeys(keyPrefix);
  const writer = { fencingToken: 'term-2', lockToken: 'token' };

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    await seedPayoutBatches(redis, keyPrefix, [
      {
        id: 'watched',
        state: 'sent',
        createdAtMs: 1,
        updatedAtMs: 2,
        resolvedAtMs: 2,
        txHash: 'ab'.repeat(32),
      },
      { id: 'open', state: 'sending', createdAtMs: 1, updatedAtMs: 2 },
    ]);
    await redis.zadd(keys.batchesUnconfirmed, 2, 'watched');
    await redis.set(keys.leaderToken, 'term-2');
    store = new PayoutStore({ keyPrefix }, { redis, clock: () => 7_000 });
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('is refused without the payout lock, and to a leader of an earlier term', async () => {
    await expect(store.markUnminedNotified(writer, 'watched')).rejects.toMatchObject({ code: 'LOCK_LOST' });
    expect(await store.acquireLock(writer.lockToken, 10_000)).toBe(true);
    await expect(
      store.markUnminedNotified({ ...writer, fencingToken: 'term-1' }, 'watched'),
    ).rejects.toMatchObject({ code: 'FENCED' });
    expect((await store.getBatch('watched'))?.unminedNotifiedAtMs).toBeNull();
  });

  it('marks a watched sent batch once (its first time kept), and refuses any other batch', async () => {
    await expect(store.markUnminedNotified(writer, 'open')).rejects.toMatchObject({ code: 'BATCH_STATE' });
    expect(await store.markUnminedNotified(writer, 'watched')).toBe(true);
    expect(await store.markUnminedNotified(writer, 'watched')).toBe(false);
    expect((await store.getBatch('watched'))?.unminedNotifiedAtMs).toBe(7_000);
    await store.confirmSent(writer, 'watched', 42);
    // No longer watched: not marked again, the mark stays on the record.
    await expect(store.markUnminedNotified(writer, 'watched')).rejects.toMatchObject({ code: 'BATCH_STATE' });
    expect((await store.getBatch('watched'))?.unminedNotifiedAtMs).toBe(7_000);
  });
});
