import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { HashrateReader } from '../../../src/store/hashrate/hashrate-reader.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, makeShare, uniquePrefix } from '../store-fixtures.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Two hours ago, on the hour: buckets expire against Redis' real clock, so the data is recent. */
const HOUR_START = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS;

/**
 * The hashrate over a window and the chart drawn from one read of a miner's (or a worker's)
 * buckets are the numbers the separate reads give: windows inside the chart, across an hour
 * boundary, and longer than the chart's span; workers charted or not.
 */
describe('hashrate and chart from one read of the buckets', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('gives what minerHashrate, minerChart, minerWorkers and workerCharts give', async () => {
    const keyPrefix = uniquePrefix('hashrate-one-read');
    const address = ADDRESSES[0]!;
    // Shares every 3 minutes over two hours, on three workers of different difficulty.
    const shares = Array.from({ length: 40 }, (_, i) =>
      makeShare({
        address,
        worker: `rig${i % 3}`,
        difficulty: 1_000 * (1 + (i % 3)) + i,
        timestampMs: HOUR_START + i * 3 * MINUTE_MS + 7_000,
      }),
    );
    await new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 50 }, { redis }).record(shares);
    const reader = new HashrateReader({ keyPrefix, maxWorkersPerMiner: 50 }, { redis });
    const cases = [
      // now, window, chart span, resolution
      [HOUR_START + HOUR_MS + 30 * MINUTE_MS + 20_000, 10 * MINUTE_MS, 2 * HOUR_MS, 10 * MINUTE_MS],
      [HOUR_START + HOUR_MS + 4 * MINUTE_MS + 1_000, 10 * MINUTE_MS, HOUR_MS, 5 * MINUTE_MS],
      [HOUR_START + 2 * HOUR_MS - 1, 90 * MINUTE_MS, 20 * MINUTE_MS, 10 * MINUTE_MS],
    ] as const;
    for (const [now, window, spanMs, resolutionMs] of cases) {
      const one = await reader.minerHashrateAndChart(address, now, window, { spanMs, resolutionMs });
      expect(one.hashrate).toBe(await reader.minerHashrate(address, now, window));
      expect(one.hashrate).toBeGreaterThan(0);
      expect(one.chart).toEqual(await reader.minerChart(address, now, spanMs, resolutionMs));
      for (const count of [0, 2, 5]) {
        const charted = await reader.minerWorkersCharted(address, now, window, {
          count,
          spanMs,
          resolutionMs,
        });
        const workers = await reader.minerWorkers(address, now, window);
        expect(charted.workers).toEqual(workers);
        const names = workers.slice(0, count).map((w) => w.name);
        expect(charted.charts).toEqual(await reader.workerCharts(address, names, now, spanMs, resolutionMs));
      }
    }
  });
});
