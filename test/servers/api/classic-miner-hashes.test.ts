import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { classicStatsAddressSchema, minerSchema } from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { makeCandidate } from '../../store/store-fixtures.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const MINER = fuegoAddress(21);
const OTHER = fuegoAddress(22);

function share(address: string, worker: string, difficulty: number, solo = false): AcceptedShare {
  return { address, worker, difficulty, height: 990, timestampMs: NOW - 60_000, solo, stale: false };
}

/**
 * Classic front ends show a miner's "hashes submitted" and its part of the current round
 * (`/stats_address` stats.hashes and stats.roundHashes, and each worker's hashes): the pool
 * counts both as the difficulty of the miner's accepted shares.
 */
describe('hashes submitted and the part of the round, per miner (/stats_address, /api/miners/:address)', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let ledger: RedisShareLedger;
  const keyPrefix = 'api-classic-hashes';

  async function record(shares: AcceptedShare[]): Promise<void> {
    await Promise.all(shares.map((s) => ledger.recordShare(s)));
    await new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 50 }, { redis }).record(shares);
  }

  async function statsOf(address: string) {
    const reply = classicStatsAddressSchema.parse(
      (await app.inject({ url: `/stats_address?address=${address}` })).json(),
    );
    if (!('workers' in reply)) throw new Error('expected a miner');
    return reply;
  }

  async function submittedOf(address: string) {
    return minerSchema.parse((await app.inject({ url: `/api/miners/${address}` })).json()).submitted;
  }

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ledger = new RedisShareLedger({ ...DEFAULT_STORE_OPTIONS, keyPrefix }, { redis, logger: silentLogger });
    ({ app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW }));
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await ledger?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('counts every accepted share, solo ones in the hashes only, and starts the round over at a block', async () => {
    await record([
      share(MINER, 'rig-a', 5_000),
      share(MINER, 'rig-a', 5_000),
      share(MINER, 'rig-b', 2_000),
      share(MINER, 'rig-b', 700, true),
      share(OTHER, 'x', 9_000),
    ]);
    const before = await statsOf(MINER);
    expect(before.stats).toMatchObject({ hashes: '12700', roundHashes: 12_000 });
    expect(before.workers.map((w) => [w.name, w.hashes])).toEqual(
      expect.arrayContaining([
        ['rig-a', 10_000],
        ['rig-b', 2_700],
      ]),
    );

    expect(await submittedOf(MINER)).toEqual({
      totalDifficulty: '12700',
      roundDifficulty: '12000',
      roundTotalDifficulty: '21000',
    });

    // The other miner finds a pool block: the round closes, what was submitted stays counted.
    const found = share(OTHER, 'x', 9_000);
    await ledger.recordBlockCandidate(makeCandidate({ height: 991, share: found }));
    const after = await statsOf(MINER);
    expect(after.stats).toMatchObject({ hashes: '12700', roundHashes: 0 });
    expect((await statsOf(OTHER)).stats).toMatchObject({ hashes: '18000', roundHashes: 0 });
    expect(await submittedOf(MINER)).toEqual({
      totalDifficulty: '12700',
      roundDifficulty: '0',
      roundTotalDifficulty: '0',
    });
  });
});
