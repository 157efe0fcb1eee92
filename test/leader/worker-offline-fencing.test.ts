import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { WorkerOfflineWatch } from '../../src/leader/worker-offline-watch.js';
import { createLogger } from '../../src/log/logger.js';
import { createPoolEventBus } from '../../src/pool/events.js';
import { HashrateBucketWriter } from '../../src/store/hashrate/hashrate-buckets.js';
import { createHashrateKeys } from '../../src/store/hashrate/hashrate-keys.js';
import { WorkerOfflineScanner } from '../../src/store/hashrate/worker-offline-scan.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../helpers/config-defaults.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { makeShare, uniquePrefix } from '../store/store-fixtures.js';

const MINUTE = 60_000;
const OFFLINE_MS = 10 * MINUTE;
/** Two hours ago, on a minute: the buckets expire against Redis' real clock, so data must be recent. */
const T0 = Math.floor(Date.now() / MINUTE) * MINUTE - 2 * 60 * MINUTE;
const silent = createLogger({ level: 'silent' });

/** A client whose next ZRANGEBYSCORE (the scan's read) waits until the test lets it go on. */
function pausableRedis(redis: Redis) {
  let pause: { reached: () => void; released: Promise<void> } | undefined;
  const proxy = new Proxy(redis, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'zrangebyscore') return value.bind(target);
      return async (...args: unknown[]) => {
        const held = pause;
        pause = undefined;
        if (held) {
          held.reached();
          await held.released;
        }
        return value.apply(target, args);
      };
    },
  });
  return {
    redis: proxy,
    pauseNextRead(): { reached: Promise<void>; release: () => void } {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const reached = new Promise<void>((resolve) => {
        pause = { reached: resolve, released };
      });
      return { reached, release };
    },
  };
}

/** A leader's watch: its own clock and, when `token` is given, the fencing token of its lease. */
function leaderWatch(redis: Redis, keyPrefix: string, token?: string | (() => string | null)) {
  const bus = createPoolEventBus((error) => {
    throw error;
  });
  const seen: string[] = [];
  bus.subscribe('worker-offline', (event) => seen.push(event.worker));
  const clock = { now: T0 };
  const fencingToken = typeof token === 'string' ? () => token : token;
  const modules = { redis, ...(fencingToken === undefined ? {} : { fencingToken }) };
  const watch = new WorkerOfflineWatch(
    { offlineMs: OFFLINE_MS },
    {
      scanner: new WorkerOfflineScanner({ keyPrefix }, modules),
      events: bus,
      logger: silent,
      clock: () => clock.now,
    },
  );
  return { watch, seen, clock };
}

function setup(redis: Redis, label: string) {
  const keyPrefix = uniquePrefix(label);
  const writer = new HashrateBucketWriter(
    { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
    { redis },
  );
  const markKey = createHashrateKeys(keyPrefix).offlineWatch;
  const leaderKey = createPaymentKeys(keyPrefix).leaderToken;
  return { keyPrefix, writer, markKey, leaderKey };
}

describe('worker-offline watch across leader changes', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('a leader that loses the lease mid-scan moves no mark and publishes nothing; the next leader reports', async () => {
    const s = setup(redis, 'offline-lost');
    await redis.set(s.leaderKey, 'token-1');
    const paused = pausableRedis(redis);
    const old = leaderWatch(paused.redis, s.keyPrefix, 'token-1');
    await old.watch.runOnce();
    expect(await redis.get(s.markKey)).toBe(String(T0 - OFFLINE_MS));
    await s.writer.record([makeShare({ worker: 'rig', timestampMs: T0 + MINUTE })]);

    old.clock.now = T0 + MINUTE + OFFLINE_MS + 1_000;
    const pause = paused.pauseNextRead();
    const run = old.watch.runOnce();
    await pause.reached;
    // Another process won the lease while this scan was in flight.
    await redis.set(s.leaderKey, 'token-2');
    pause.release();
    await run;
    expect(old.seen).toEqual([]);
    expect(await redis.get(s.markKey)).toBe(String(T0 - OFFLINE_MS));

    const next = leaderWatch(redis, s.keyPrefix, 'token-2');
    next.clock.now = old.clock.now + 30_000;
    await next.watch.runOnce();
    expect(next.seen).toEqual(['rig']);
  });

  it('a leader whose lease ran out by its own clock mid-scan writes nothing, though Redis still holds its token', async () => {
    const s = setup(redis, 'offline-expired');
    await redis.set(s.leaderKey, 'token-1');
    let leading = true;
    const paused = pausableRedis(redis);
    const old = leaderWatch(paused.redis, s.keyPrefix, () => (leading ? 'token-1' : null));
    await old.watch.runOnce();
    await s.writer.record([makeShare({ worker: 'rig', timestampMs: T0 + MINUTE })]);
    old.clock.now = T0 + MINUTE + OFFLINE_MS + 1_000;
    const pause = paused.pauseNextRead();
    const run = old.watch.runOnce();
    await pause.reached;
    // The election's local deadline comes before Redis lets a successor in.
    leading = false;
    pause.release();
    await run;
    expect(old.seen).toEqual([]);
    expect(await redis.get(s.markKey)).toBe(String(T0 - OFFLINE_MS));
    // Not leading: the next run does not even read.
    await old.watch.runOnce();
    expect(await redis.get(s.markKey)).toBe(String(T0 - OFFLINE_MS));
  });

  it.each([
    ['fenced leaders', true],
    ['no election', false],
  ])('a stale scan finishing late never moves the mark back (%s)', async (_label, fenced) => {
    const s = setup(redis, `offline-stale-${fenced}`);
    if (fenced) await redis.set(s.leaderKey, 'token-1');
    const paused = pausableRedis(redis);
    const stale = leaderWatch(paused.redis, s.keyPrefix, fenced ? 'token-1' : undefined);
    const next = leaderWatch(redis, s.keyPrefix, fenced ? 'token-2' : undefined);
    await stale.watch.runOnce();
    await s.writer.record([makeShare({ worker: 'laptop', timestampMs: T0 + MINUTE })]);
    await s.writer.record([makeShare({ worker: 'rig', timestampMs: T0 + 3 * MINUTE })]);

    // The stale scan reads up to laptop's transition, then waits while the next leader scans on.
    stale.clock.now = T0 + 2 * MINUTE + OFFLINE_MS;
    const pause = paused.pauseNextRead();
    const run = stale.watch.runOnce();
    await pause.reached;
    if (fenced) await redis.set(s.leaderKey, 'token-2');
    next.clock.now = T0 + 4 * MINUTE + OFFLINE_MS;
    await next.watch.runOnce();
    expect(next.seen).toEqual(['laptop', 'rig']);
    pause.release();
    await run;

    expect(stale.seen).toEqual([]);
    expect(await redis.get(s.markKey)).toBe(String(next.clock.now - OFFLINE_MS));
    next.clock.now += 30_000;
    await next.watch.runOnce();
    expect(next.seen).toEqual(['laptop', 'rig']);
  });
});
