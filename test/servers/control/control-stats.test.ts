import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { createControlStats } from '../../../src/servers/control/control-stats.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { HashrateReader } from '../../../src/store/hashrate/hashrate-reader.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';

const A = `fire${'A'.repeat(94)}`;
const B = `fire${'B'.repeat(94)}`;
const C = `fire${'C'.repeat(94)}`;

describe('createControlStats (real Redis)', () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, createLogger({ level: 'silent' }));
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('ranks active miners by hashrate over the window, with active worker counts', async () => {
    const keyPrefix = `ctl${process.pid}`;
    const writer = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    const now = Date.now();
    const share = (address: string, worker: string, difficulty: number, ageMs: number) => ({
      address,
      worker,
      difficulty,
      height: 100,
      timestampMs: now - ageMs,
      solo: false,
      stale: false,
    });
    await writer.record([
      share(A, 'rig1', 1_000, 30_000),
      share(A, 'rig2', 1_000, 20_000),
      share(B, 'x', 60_000, 10_000),
      // C mined 2 hours ago: outside the 10-minute window.
      share(C, 'old', 9_000_000, 2 * 3_600_000),
    ]);
    const stats = createControlStats(
      {},
      {
        reader: new HashrateReader(
          { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
          { redis },
        ),
        clock: () => now,
      },
    );

    const top = await stats.topMiners(10, 600_000);
    expect(top.map((m) => m.address)).toEqual([B, A]);
    expect(top[0]!.hashrate).toBeGreaterThan(top[1]!.hashrate);
    expect(top.map((m) => m.activeWorkers)).toEqual([1, 2]);
    expect(top[1]!.lastShareMs).toBe(now - 20_000);
    expect(await stats.topMiners(1, 600_000)).toHaveLength(1);

    const pool = await stats.poolHashrate(600_000);
    expect(pool.miners).toBe(2);
    expect(pool.workers).toBe(3);
    expect(pool.hashrate).toBeGreaterThan(0);
  });

  it('returns no miners for an empty pool', async () => {
    const stats = createControlStats(
      {},
      {
        reader: new HashrateReader(
          { keyPrefix: `empty${process.pid}`, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
          { redis },
        ),
      },
    );
    expect(await stats.topMiners(5, 600_000)).toEqual([]);
    expect(await stats.poolHashrate(600_000)).toEqual({ hashrate: 0, miners: 0, workers: 0 });
  });
});
