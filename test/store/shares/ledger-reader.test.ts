import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { previousStreamId, RedisLedgerReader } from '../../../src/store/shares/ledger-reader.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import type { RedisShareLedgerOptions } from '../../../src/store/shares/share-ledger-options.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, makeShare, silentLogger, uniquePrefix } from '../store-fixtures.js';

describe('previousStreamId', () => {
  it('steps back one sequence number, or to the last id of the previous millisecond', () => {
    expect(previousStreamId('1700000000000-5')).toBe('1700000000000-4');
    expect(previousStreamId('1700000000000-0')).toBe('1699999999999-18446744073709551615');
    expect(previousStreamId('0-0')).toBeNull();
    expect(() => previousStreamId('not-an-id')).toThrow(expect.objectContaining({ code: 'INVALID_RECORD' }));
  });
});

describe('RedisLedgerReader', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  function newLedger(label: string, options: Partial<RedisShareLedgerOptions> = {}) {
    const keyPrefix = uniquePrefix(label);
    return {
      keyPrefix,
      keys: createShareKeys(keyPrefix),
      ledger: new RedisShareLedger(
        { ...DEFAULT_STORE_OPTIONS, keyPrefix, ...options },
        { redis, logger: silentLogger },
      ),
    };
  }

  it('reads a PPLNS window back in pages, newest first, skipping solo shares', async () => {
    const { ledger, keyPrefix } = newLedger('window');
    // 30 shares of difficulty 10; every third is solo.
    for (let i = 0; i < 30; i += 1) {
      await ledger.recordShare(makeShare({ height: i, difficulty: 10, solo: i % 3 === 2 }));
    }
    const lastId = (await redis.xrevrange(createShareKeys(keyPrefix).shares, '+', '-', 'COUNT', 1))[0]![0];
    // A reader needs no ledger: the API and payment roles build their own.
    const reader = new RedisLedgerReader({ keyPrefix }, { redis });

    const window = await reader.readSharesBackFrom(lastId, 95n, { pageSize: 4 });
    expect(window.endReason).toBe('filled');
    expect(window.windowDifficulty).toBe(100n);
    expect(window.shares.map((share) => share.height)).toEqual([28, 27, 25, 24, 22, 21, 19, 18, 16, 15]);
    expect(window.shares.every((share) => !share.solo)).toBe(true);

    const all = await reader.readSharesBackFrom(lastId, 10_000n, { pageSize: 4 });
    expect(all.endReason).toBe('stream-start');
    expect(all.shares).toHaveLength(20);
    expect(all.windowDifficulty).toBe(200n);

    const capped = await reader.readSharesBackFrom(lastId, 10_000n, { pageSize: 4, maxShares: 7 });
    expect(capped.endReason).toBe('max-shares');
    expect(capped.shares).toHaveLength(7);

    // Starting from an older entry leaves the newer ones out.
    const fromMiddle = await reader.readSharesBackFrom(window.shares[4]!.entryId, 20n);
    expect(fromMiddle.shares.map((share) => share.height)).toEqual([22, 21]);
  });

  it('tells a trimmed stream from a young one, and refuses a trimmed starting entry', async () => {
    // Approximate trimming drops whole stream nodes (100 entries by default).
    const { ledger, keys } = newLedger('trim', { streamMaxLength: 10, maxBatchSize: 50 });
    const first = makeShare({ height: 0, address: ADDRESSES[1] });
    await ledger.recordShare(first);
    const firstId = (await redis.xrange(keys.shares, '-', '+', 'COUNT', 1))[0]![0];
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => ledger.recordShare(makeShare({ height: i + 1 }))),
    );
    expect(await redis.xlen(keys.shares)).toBeLessThan(401);

    const lastId = (await redis.xrevrange(keys.shares, '+', '-', 'COUNT', 1))[0]![0];
    const window = await ledger.readSharesBackFrom(lastId, 10n ** 12n);
    expect(window.endReason).toBe('trimmed');

    await expect(ledger.readSharesBackFrom(firstId, 1n)).rejects.toMatchObject({
      code: 'SHARE_ENTRY_MISSING',
    });
  });

  it('refuses corrupt stored values instead of reading them as zero', async () => {
    const { ledger, keys } = newLedger('corrupt');
    await redis.hset(keys.roundCurrent, ADDRESSES[0], 'garbage');
    await expect(ledger.getRoundContributions()).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    await redis.hset(keys.block('ab'.repeat(32)), 'status', 'pending');
    await expect(ledger.getBlockCandidate('ab'.repeat(32))).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
  });
});
