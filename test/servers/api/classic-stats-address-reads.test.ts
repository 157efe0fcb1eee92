import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { classicStatsAddressSchema } from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { type ChartPoint, HashrateReader } from '../../../src/store/hashrate/hashrate-reader.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const MINER = fuegoAddress(31);
const keyPrefix = 'classic-address-reads';
const OPTIONS = {
  hashrateWindowMs: 10 * 60_000,
  minerChartSpanMs: 2 * 3_600_000,
  minerChartResolutionMs: 10 * 60_000,
  maxWorkerCharts: 2,
};

/** A chart as /stats_address draws it: [time (s), hashrate (rounded), 1]. */
function classicPoints(points: readonly ChartPoint[]): number[][] {
  return points.map((p) => [Math.floor(p.startMs / 1000), Math.round(p.hashrate), 1]);
}

function share(worker: string, difficulty: number, minutesAgo: number): AcceptedShare {
  const timestampMs = NOW - minutesAgo * 60_000;
  return { address: MINER, worker, difficulty, height: 990, timestampMs, solo: false, stale: false };
}

/**
 * The commands Redis ran while `run` ran, as MONITOR reports them (name lower-cased, then args).
 * `marker` (a client of the same Redis) sends a GET of a marker key after `run`: once MONITOR has
 * reported it, it has reported every command sent before it.
 */
async function commandsDuring(url: string, marker: Redis, run: () => Promise<unknown>): Promise<string[][]> {
  const watcher = await createRedisClient({ url }, silentLogger);
  const monitor = await watcher.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) =>
    seen.push([args[0]!.toLowerCase(), ...args.slice(1)]),
  );
  try {
    await run();
    const markerKey = `${keyPrefix}:marker`;
    await marker.get(markerKey);
    await expect.poll(() => seen.some((c) => c[1] === markerKey)).toBe(true);
    return seen.slice(
      0,
      seen.findIndex((c) => c[1] === markerKey),
    );
  } finally {
    monitor.disconnect();
    watcher.disconnect();
  }
}

/**
 * `/stats_address` reads each of the miner's Redis keys once a request: its totals (miner hash),
 * its part of the round, its balance and its payment list were read twice (once for the miner's
 * view, again for the classic workers' hashes and payments), and its and its workers' hashrate
 * minute buckets twice (the hashrate over the window, then the chart).
 */
describe('/stats_address: each Redis key read once per request', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let ledger: RedisShareLedger;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ledger = new RedisShareLedger({ ...DEFAULT_STORE_OPTIONS, keyPrefix }, { redis, logger: silentLogger });
    const shares = [share('rig-a', 5_000, 3), share('rig-a', 5_000, 2), share('rig-b', 2_000, 1)];
    for (const s of shares) await ledger.recordShare(s);
    await new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 50 }, { redis }).record(shares);
    const money = createPaymentKeys(keyPrefix);
    await redis
      .multi()
      .hset(money.balance(MINER), 'credited', '900', 'balance', '500', 'inPayout', '100', 'paid', '290')
      .lpush(
        money.payments(MINER),
        JSON.stringify({
          batchId: 'b1',
          txHash: 'cd'.repeat(32),
          amountAtomic: '290',
          networkFeeAtomic: '10',
          timestampMs: NOW - 60_000,
        }),
      )
      .exec();
    ({ app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW, options: OPTIONS }));
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await ledger?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('answers the miner as before, reading no key twice', async () => {
    let payload = '';
    const commands = await commandsDuring(server.url, redis, async () => {
      payload = (await app.inject({ url: `/stats_address?address=${MINER}` })).payload;
    });
    const reply = classicStatsAddressSchema.parse(JSON.parse(payload));
    if (!('stats' in reply)) throw new Error('expected the miner');
    expect(reply.stats).toMatchObject({ hashes: '12000', roundHashes: 12_000, balance: '500', paid: '290' });
    expect(reply.payments).toEqual([`${'cd'.repeat(32)}:290:10:0`, Math.floor((NOW - 60_000) / 1000)]);
    expect(reply.workers.map((w) => [w.name, w.hashes])).toEqual(
      expect.arrayContaining([
        ['rig-a', 10_000],
        ['rig-b', 2_000],
      ]),
    );
    // The hashrates and charts are those the hashrate reader draws from the buckets.
    const reader = new HashrateReader({ keyPrefix, maxWorkersPerMiner: 50 }, { redis });
    const { hashrateWindowMs: window, minerChartSpanMs: span, minerChartResolutionMs: resolution } = OPTIONS;
    expect(reply.stats.hashrate).toBe(Math.round(await reader.minerHashrate(MINER, NOW, window)));
    expect(reply.charts.hashrate).toEqual(
      classicPoints(await reader.minerChart(MINER, NOW, span, resolution)),
    );
    const workers = await reader.minerWorkers(MINER, NOW, window);
    expect(reply.workers.map((w) => [w.name, w.hashrate])).toEqual(
      workers.map((w) => [w.name, Math.round(w.hashrate)]),
    );
    const names = workers.map((w) => w.name);
    const charts = await reader.workerCharts(MINER, names, NOW, span, resolution);
    expect(reply.charts.worker_hashrate).toEqual(
      Object.fromEntries(names.map((name, i) => [name, classicPoints(charts[i]!)])),
    );
    expect(reply.charts.hashrate.some(([, rate]) => rate! > 0)).toBe(true);

    // Reads of the same key (the command's first argument; HGET of another field of a hash
    // counts as the same key) more than once in the request: the hashrate minute buckets too,
    // which the hashrate over the window (HMGET) and the chart (HGETALL) both need.
    const perKey = new Map<string, string[]>();
    for (const [name, key] of commands) perKey.set(key!, [...(perKey.get(key!) ?? []), name!]);
    const twice = [...perKey].filter(([, names]) => names.length > 1);
    expect(commands.length).toBeGreaterThan(5);
    expect(twice).toEqual([]);
  });
});
