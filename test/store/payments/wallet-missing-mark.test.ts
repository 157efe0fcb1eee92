import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { silentLogger } from '../../store/store-fixtures.js';

const keyPrefix = 'wallet-missing-mark';

/**
 * mark_wallet_missing on a real Redis: fenced by the payout lock like every payout script, only a
 * watched sent batch is marked, each change is told once, and confirm_sent ends the mark.
 */
describe('PayoutStore.markWalletMissing', () => {
  let server: TestRedis;
  let redis: Redis;
  let store: PayoutStore;
  const writer = { fencingToken: '', lockToken: 'token' };

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    await seedPayoutBatches(redis, keyPrefix, [
      { id: 'watched', state: 'sent', createdAtMs: 1, updatedAtMs: 2, txHash: 'ab'.repeat(32) },
      { id: 'open', state: 'sending', createdAtMs: 1, updatedAtMs: 2 },
    ]);
    await redis.zadd(createPaymentKeys(keyPrefix).batchesUnconfirmed, 2, 'watched');
    store = new PayoutStore({ keyPrefix }, { redis, clock: () => 5_000 });
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('is refused without the payout lock', async () => {
    await expect(store.markWalletMissing(writer, 'watched', true)).rejects.toMatchObject({
      code: 'LOCK_LOST',
    });
    expect(await store.walletMissingSince()).toEqual(new Map());
  });

  it('marks a watched sent batch once, clears it once, and refuses any other batch', async () => {
    expect(await store.acquireLock(writer.lockToken, 10_000)).toBe(true);
    await expect(store.markWalletMissing(writer, 'open', true)).rejects.toMatchObject({
      code: 'BATCH_STATE',
    });
    expect(await store.markWalletMissing(writer, 'watched', true)).toBe(true);
    expect(await store.markWalletMissing(writer, 'watched', true)).toBe(false);
    expect(await store.walletMissingSince()).toEqual(new Map([['watched', 5_000]]));
    expect((await store.countBatches()).walletMissing).toBe(1);
    expect(await store.markWalletMissing(writer, 'watched', false)).toBe(true);
    expect(await store.markWalletMissing(writer, 'watched', false)).toBe(false);

    expect(await store.markWalletMissing(writer, 'watched', true)).toBe(true);
    await store.confirmSent(writer, 'watched', 42, 'the operator found it on chain');
    expect(await store.walletMissingSince()).toEqual(new Map());
    expect(await redis.hget(createPaymentKeys(keyPrefix).batch('watched'), 'confirmNote')).toBe(
      'the operator found it on chain',
    );
    // No longer watched: not marked again.
    await expect(store.markWalletMissing(writer, 'watched', true)).rejects.toMatchObject({
      code: 'BATCH_STATE',
    });
  });
});
