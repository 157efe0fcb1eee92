import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import {
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { FEE, stubChain, unlockerOn } from './unlocker-kit.js';

const REWARD = 80_000_000;

describe('BlockUnlocker with more pending blocks than one run reads', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('decides the oldest pending block even when 2,000 newer ones wait behind it', async () => {
    const keyPrefix = uniquePrefix('backlog');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    // confirmDepth 10,000 is within the schema's range; a pool finding a fifth of the blocks then
    // has about 2,000 blocks pending at any time.
    const confirmDepth = 10_000;
    const count = 2_001;
    for (let height = 1; height <= count; height++) {
      await ledger.writeBlockCandidate(
        makeCandidate({ height, hash: blockHash(height), share: makeShare({ solo: true }) }),
      );
    }
    // Only height 1 is confirmDepth deep; every other block is on the chain, shallower.
    const daemon = stubChain(1 + confirmDepth, blockHash, REWARD);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth }, { daemon, logger: silentLogger });

    const summary = await unlocker.runOnce();

    expect(summary.decisions.find((d) => d.hash === blockHash(1))).toMatchObject({ outcome: 'confirmed' });
    expect((await ledger.getBlockCandidate(blockHash(1)))?.status).toBe('confirmed');
    const finder = makeShare({ solo: true }).address;
    const soloFee = (BigInt(REWARD) * BigInt(FEE.solo.poolFeeBasisPoints)) / 10_000n;
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(finder)).credited).toBe(BigInt(REWARD) - soloFee);
  }, 60_000);
});
