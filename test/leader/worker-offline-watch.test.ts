import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LeaderLoop } from '../../src/leader/leader-loop.js';
import { WorkerOfflineWatch } from '../../src/leader/worker-offline-watch.js';
import { createLogger } from '../../src/log/logger.js';
import { createPoolEventBus, type PoolEventMap } from '../../src/pool/events.js';
import { HashrateBucketWriter } from '../../src/store/hashrate/hashrate-buckets.js';
import { createHashrateKeys } from '../../src/store/hashrate/hashrate-keys.js';
import { WorkerOfflineScanner } from '../../src/store/hashrate/worker-offline-scan.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../helpers/config-defaults.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { ADDRESSES, makeShare, uniquePrefix } from '../store/store-fixtures.js';

const MINUTE = 60_000;
const OFFLINE_MS = 10 * MINUTE;
/** Two hours ago, on a minute: the buckets expire against Redis' real clock, so data must be recent. */
const T0 = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * 60 * MINUTE;
const silent = createLogger({ level: 'silent' });

type Offline = PoolEventMap['worker-offline'];

function watchOn(redis: Redis, keyPrefix: string, clock: () => number, maxWorkersPerScan?: number) {
  const bus = createPoolEventBus((error) => {
    throw error;
  });
  const seen: Offline[] = [];
  bus.subscribe('worker-offline', (event) => seen.push(event));
  const watch = new WorkerOfflineWatch(
    { offlineMs: OFFLINE_MS, ...(maxWorkersPerScan === undefined ? {} : { maxWorkersPerScan }) },
    { scanner: new WorkerOfflineScanner({ keyPrefix }, { redis }), events: bus, logger: silent, clock },
  );
  return { watch, seen, bus };
}

describe('worker-offline watch (leader)', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('publishes once per transition; donation minutes and short pauses are no transition', async () => {
    const keyPrefix = uniquePrefix('offline-watch');
    const writer = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    let now = T0;
    const { watch, seen } = watchOn(redis, keyPrefix, () => now);
    // When each worker mines (minutes from T0): `rig` with XMRig's donation minute twice, stops at
    // 30, comes back at 45 for a minute; `laptop` stops at 5 for good.
    const mining: Record<string, (minute: number) => boolean> = {
      rig: (m) => (m < 30 && !(m >= 10 && m < 11) && !(m >= 27 && m < 28)) || (m >= 45 && m < 46),
      laptop: (m) => m < 5,
    };
    for (let step = 0; step <= 80 * 3; step++) {
      now = T0 + step * 20_000;
      const shares = Object.entries(mining)
        .filter(([, on]) => on((now - T0) / MINUTE))
        .map(([worker]) => makeShare({ worker, difficulty: 1_000, timestampMs: now }));
      if (shares.length > 0) await writer.record(shares);
      const before = seen.length;
      await watch.runOnce();
      // Each event within one watch run of the worker's 10 minutes without a share.
      for (const event of seen.slice(before)) {
        expect(now - event.lastShareMs).toBeGreaterThanOrEqual(OFFLINE_MS);
        expect(now - event.lastShareMs).toBeLessThan(OFFLINE_MS + 20_000);
      }
    }
    expect(seen.map((e) => [e.worker, (e.lastShareMs - T0) / 1000])).toEqual([
      ['laptop', 4 * 60 + 40],
      ['rig', 29 * 60 + 40],
      ['rig', 45 * 60 + 40],
    ]);
    expect(seen[0]).toEqual({
      address: ADDRESSES[0],
      worker: 'laptop',
      lastShareMs: T0 + 280_000,
      offlineAfterMs: OFFLINE_MS,
    });
  });

  it('reports nothing from before its first run, and carries on from the mark after a restart', async () => {
    const keyPrefix = uniquePrefix('offline-mark');
    const writer = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    await writer.record([makeShare({ worker: 'old', timestampMs: T0 })]);
    let now = T0 + 30 * MINUTE;
    const first = watchOn(redis, keyPrefix, () => now);
    await first.watch.runOnce();
    expect(first.seen).toEqual([]);
    await writer.record([makeShare({ worker: 'new', timestampMs: now })]);
    // Another leader takes over (a new watch, the same Redis): `new` goes offline on its watch.
    now += OFFLINE_MS + 1_000;
    const second = watchOn(redis, keyPrefix, () => now);
    await second.watch.runOnce();
    await second.watch.runOnce();
    expect(second.seen.map((e) => e.worker)).toEqual(['new']);
    await redis.set(createHashrateKeys(keyPrefix).offlineWatch, 'not-a-number');
    await expect(second.watch.runOnce()).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
  });

  it('notifies at most maxWorkersPerScan workers per run and counts the rest', async () => {
    const keyPrefix = uniquePrefix('offline-many');
    const writer = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    const scanner = new WorkerOfflineScanner({ keyPrefix }, { redis });
    await scanner.scan(T0, OFFLINE_MS, 2);
    await writer.record(
      Array.from({ length: 5 }, (_, i) => makeShare({ worker: `w${i}`, timestampMs: T0 + i })),
    );
    const scan = await scanner.scan(T0 + OFFLINE_MS + MINUTE, OFFLINE_MS, 2);
    expect(scan.workers.map((w) => w.worker)).toEqual(['w0', 'w1']);
    expect(scan.skipped).toBe(3);
    expect((await scanner.scan(T0 + OFFLINE_MS + 2 * MINUTE, OFFLINE_MS, 2)).workers).toEqual([]);
  });

  it('runs in the leader loop only when given, on its own interval', async () => {
    const runs: number[] = [];
    const bus = createPoolEventBus(() => {});
    const idle = { runOnce: async () => ({ decisions: [] }), windows: { fixPending: async () => {} } };
    const loop = new LeaderLoop(
      { unlockIntervalMs: 60_000, payoutIntervalMs: null, workerWatchIntervalMs: 10 },
      {
        unlocker: idle as never,
        payouts: { runOnce: async () => ({}) as never },
        workerWatch: { runOnce: async () => void runs.push(Date.now()) },
        events: bus,
        logger: silent,
      },
    );
    loop.start();
    await expect.poll(() => runs.length).toBeGreaterThanOrEqual(3);
    await loop.stop();
  });
});
