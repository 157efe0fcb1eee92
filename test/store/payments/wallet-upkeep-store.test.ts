import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { WalletUpkeepStore } from '../../../src/store/payments/wallet-upkeep-store.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { uniquePrefix } from '../store-fixtures.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

describe('wallet upkeep record in Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('keeps the refusal request and the pending fusions under the pool hash tag', async () => {
    const keyPrefix = uniquePrefix('upkeep');
    const store = new WalletUpkeepStore({ keyPrefix }, { redis });
    expect(store.keys.payoutUpkeepRequest).toBe(`{${keyPrefix}}:payout:upkeep-request`);
    expect(store.keys.payoutFusions).toBe(`{${keyPrefix}}:payout:fusions`);
    expect(await store.getRequest()).toBeNull();
    expect(await store.listFusions()).toEqual([]);

    await store.setRequest({ reason: 'MixIn count is too big', atMs: 5 });
    await store.setRequest({ reason: 'Transaction size is too big', atMs: 7 });
    expect(await store.getRequest()).toEqual({ reason: 'Transaction size is too big', atMs: 7 });
    await store.addFusion({ txHash: HASH_B, sentAtMs: 20, trigger: 'refusal' });
    await store.addFusion({ txHash: HASH_A, sentAtMs: 10, trigger: 'share' });
    // Another process's upkeep sees them (a new leader keeps holding payouts for them).
    const other = new WalletUpkeepStore({ keyPrefix }, { redis });
    expect(await other.listFusions()).toEqual([
      { txHash: HASH_A, sentAtMs: 10, trigger: 'share' },
      { txHash: HASH_B, sentAtMs: 20, trigger: 'refusal' },
    ]);
    await other.removeFusions([HASH_A]);
    await other.clearRequest();
    expect(await store.listFusions()).toEqual([{ txHash: HASH_B, sentAtMs: 20, trigger: 'refusal' }]);
    expect(await store.getRequest()).toBeNull();
  });

  it('refuses corrupt records rather than reading them as nothing pending', async () => {
    const store = new WalletUpkeepStore({ keyPrefix: uniquePrefix('upkeep-corrupt') }, { redis });
    await redis.hset(store.keys.payoutFusions, HASH_A, '{"sentAtMs":"x","trigger":"share"}');
    await expect(store.listFusions()).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    await redis.set(store.keys.payoutUpkeepRequest, 'not json');
    await expect(store.getRequest()).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
  });
});
