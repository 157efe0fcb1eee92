import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisMinerThresholds } from '../../../src/store/payments/miner-thresholds.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, uniquePrefix } from '../store-fixtures.js';

const CAP = 10_000_000_000n; // 1000 XFG

describe('miner payout thresholds in Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });
  const store = (keyPrefix: string, maxThresholdAtomic = CAP) =>
    new RedisMinerThresholds({ keyPrefix, maxThresholdAtomic }, { redis });

  it('keeps a threshold with its timestamp under the pool hash tag; no record means the pool minimum', async () => {
    const keyPrefix = uniquePrefix('thresholds');
    const thresholds = store(keyPrefix);
    expect(thresholds.key).toBe(`{${keyPrefix}}:payout:thresholds`);
    expect(await thresholds.read(ADDRESSES[0])).toBeNull();
    expect(await thresholds.thresholdOf(ADDRESSES[0])).toBeUndefined();

    expect(await thresholds.write(ADDRESSES[0], 250_000_000n, 1_700_000_000)).toBe(true);
    expect(await thresholds.read(ADDRESSES[0])).toEqual({
      thresholdAtomic: 250_000_000n,
      timestampSec: 1_700_000_000,
    });
    expect(await thresholds.thresholdOf(ADDRESSES[0])).toBe(250_000_000n);
    expect(await thresholds.read(ADDRESSES[1])).toBeNull();
  });

  it('refuses a write stamped the same or earlier than the stored one, also after a return to the minimum', async () => {
    const thresholds = store(uniquePrefix('thresholds-stale'));
    const address = ADDRESSES[0];
    expect(await thresholds.write(address, 500_000_000n, 100)).toBe(true);
    expect(await thresholds.write(address, 900_000_000n, 100)).toBe(false);
    expect(await thresholds.write(address, 900_000_000n, 99)).toBe(false);
    expect(await thresholds.thresholdOf(address)).toBe(500_000_000n);

    // Back to the pool minimum: no threshold, but the timestamp stays, so the old message is dead.
    expect(await thresholds.write(address, null, 101)).toBe(true);
    expect(await thresholds.read(address)).toEqual({ thresholdAtomic: null, timestampSec: 101 });
    expect(await thresholds.thresholdOf(address)).toBeUndefined();
    expect(await thresholds.write(address, 500_000_000n, 100)).toBe(false);
  });

  it('applies the configured cap when read for payouts, so a lowered cap holds at once', async () => {
    const keyPrefix = uniquePrefix('thresholds-cap');
    await store(keyPrefix).write(ADDRESSES[0], 900_000_000n, 1);
    expect(await store(keyPrefix, 300_000_000n).thresholdOf(ADDRESSES[0])).toBe(300_000_000n);
    expect(await store(keyPrefix).thresholdOf(ADDRESSES[0])).toBe(900_000_000n);
  });

  it('keeps the latest of concurrent writes (compare and set in one script)', async () => {
    const thresholds = store(uniquePrefix('thresholds-race'));
    const stamps = Array.from({ length: 40 }, (_, i) => 1_000 + ((i * 17) % 40));
    const results = await Promise.all(
      stamps.map((stamp) => thresholds.write(ADDRESSES[0], BigInt(stamp) * 10n, stamp)),
    );
    expect(results.some((accepted) => accepted)).toBe(true);
    expect(await thresholds.read(ADDRESSES[0])).toEqual({ thresholdAtomic: 10_390n, timestampSec: 1_039 });
  });

  it('names a corrupt record instead of reading it as no threshold', async () => {
    const thresholds = store(uniquePrefix('thresholds-corrupt'));
    await redis.hset(thresholds.key, ADDRESSES[0], 'lots');
    await expect(thresholds.thresholdOf(ADDRESSES[0])).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    await expect(thresholds.write(ADDRESSES[0], 5n, 10)).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    await expect(thresholds.write(ADDRESSES[1], 0n, 10)).rejects.toMatchObject({ code: 'INVALID_RECORD' });
    await expect(thresholds.write(ADDRESSES[1], 5n, -1)).rejects.toMatchObject({ code: 'INVALID_RECORD' });
  });
});
