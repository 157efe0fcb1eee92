import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { blocksPageSchema } from '../../../src/servers/api/api-schemas.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { stubChain, unlockerOn } from '../../leader/unlocker/unlocker-kit.js';
import { blockHash, makeCandidate, makeShare } from '../../store/store-fixtures.js';
import { buildTestApi, silentLogger } from './api-fixtures.js';

/** The fake daemon's chain: 1,000 blocks, top at 999. */
const TOP = 999;

describe('GET /api/blocks: confirmations of pending blocks', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('a pending block that a reorg replaced shows 0 confirmations, not the other block’s depth', async () => {
    const keyPrefix = 'api-confirmations';
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const onChain = blockHash(0x996);
    const replaced = blockHash(0x995);
    for (const [height, hash] of [
      [995, replaced],
      [996, onChain],
    ] as const) {
      await ledger.writeBlockCandidate(makeCandidate({ height, hash, share: makeShare({ solo: true }) }));
    }
    // Another block holds 995 (4 deep, below confirmDepth): the unlocker leaves it pending.
    const daemon = stubChain(TOP, (height) => (height === 995 ? blockHash(0xbad) : onChain), 80_000_000);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth: 60 }, { daemon, logger: silentLogger });
    const run = await unlocker.runOnce();
    expect(run.decisions.map((d) => [d.height, d.outcome])).toEqual([
      [995, 'not-on-main-chain'],
      [996, 'pending'],
    ]);

    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      await app.ready();
      await app.pool.network.refresh();
      const page = blocksPageSchema.parse(JSON.parse((await app.inject({ url: '/api/blocks' })).payload));
      expect(page.blocks.map((b) => [b.height, b.status, b.confirmations])).toEqual([
        [996, 'pending', 3],
        [995, 'pending', 0],
      ]);
    } finally {
      await app.close();
    }
  });

  it('a credited block a reorg deeper than confirmDepth replaced shows orphaned, with the reward credited', async () => {
    const keyPrefix = 'api-orphaned-after-credit';
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const hash = blockHash(0x900);
    await ledger.writeBlockCandidate(makeCandidate({ height: 900, hash, share: makeShare({ solo: true }) }));
    let replaced = false;
    const daemon = stubChain(TOP, () => (replaced ? blockHash(0xbad) : hash), 80_000_000);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth: 60 }, { daemon, logger: silentLogger });
    expect((await unlocker.runOnce()).decisions.map((d) => d.outcome)).toEqual(['confirmed']);
    replaced = true;
    expect((await unlocker.runOnce()).decisions.map((d) => d.outcome)).toEqual(['orphaned-after-credit']);

    const { app } = await buildTestApi({ redis, keyPrefix });
    try {
      await app.ready();
      await app.pool.network.refresh();
      const page = blocksPageSchema.parse(JSON.parse((await app.inject({ url: '/api/blocks' })).payload));
      expect(page.blocks.map((b) => [b.height, b.status, b.confirmations, b.rewardAtomic])).toEqual([
        [900, 'orphaned', null, '80000000'],
      ]);
    } finally {
      await app.close();
    }
  });
});
