import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
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

const [A, B] = ADDRESSES;

describe('BlockUnlocker orphaning a PROP block when the open round’s summary is corrupt', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('merges the orphaned round into the open one only once, after the summary is repaired', async () => {
    const keyPrefix = uniquePrefix('orphan-corrupt');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const keys = createShareKeys(keyPrefix);
    await ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
    const hash = blockHash(0x0f);
    await ledger.writeBlockCandidate(
      makeCandidate({ hash, height: 10, share: makeShare({ address: A, difficulty: 200 }) }),
    );
    // The open round's total is not a number: orphan_block's HINCRBY on it fails after it has
    // added the first miner's difficulty to the open round.
    await redis.hset(keys.roundCurrentMeta, 'totalDifficulty', 'not-a-number');
    const unlocker = unlockerOn(
      redis,
      keyPrefix,
      { scheme: 'prop', confirmDepth: 5 },
      { daemon: stubChain(20, () => blockHash(0xbad), 90_000_000), logger: silentLogger },
    );

    for (let run = 0; run < 2; run++) {
      const summary = await unlocker.runOnce();
      expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'error' })]);
      expect(await ledger.getRoundContributions()).toEqual(new Map());
    }

    await redis.hset(keys.roundCurrentMeta, 'totalDifficulty', '0');
    expect((await unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'orphaned' })]);
    expect(await ledger.getRoundContributions()).toEqual(
      new Map([
        [A, 200n],
        [B, 800n],
      ]),
    );
  });
});
