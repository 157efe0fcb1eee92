import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { stubChain, unlockerOn } from './unlocker-kit.js';

const [A, B, C] = ADDRESSES;

describe('BlockUnlocker crediting a block when one miner’s balance record is corrupt', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('credits nobody until the record is repaired, then every miner once', async () => {
    const keyPrefix = uniquePrefix('corrupt-balance');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const money = createPaymentKeys(keyPrefix);
    await ledger.recordShare(makeShare({ address: C, difficulty: 500 }));
    await ledger.recordShare(makeShare({ address: B, difficulty: 500 }));
    const hash = blockHash(0xc0);
    await ledger.writeBlockCandidate(
      makeCandidate({
        hash,
        height: 10,
        networkDifficulty: 1000n,
        share: makeShare({ address: A, difficulty: 500 }),
      }),
    );
    // C's balance is not a number: credit_block's HINCRBY fails on it, after A's and B's (credits
    // are written in address order).
    await redis.hset(money.balance(C), 'balance', 'not-a-number');
    const unlocker = unlockerOn(
      redis,
      keyPrefix,
      { confirmDepth: 5 },
      { daemon: stubChain(20, () => hash, 90_000_000), logger: silentLogger },
    );
    const credited = async (address: string) => (await redis.hget(money.balance(address), 'credited')) ?? '0';

    for (let run = 0; run < 2; run++) {
      const summary = await unlocker.runOnce();
      expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'error' })]);
      expect([await credited(A), await credited(B)]).toEqual(['0', '0']);
      expect(await redis.hget(money.totals, 'rewards')).toBeNull();
    }

    await redis.hset(money.balance(C), 'balance', '0');
    expect((await unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    // 1% pool fee of 90,000,000 leaves 89,100,000, a third each.
    expect([await credited(A), await credited(B), await credited(C)]).toEqual([
      '29700000',
      '29700000',
      '29700000',
    ]);
  });
});
