import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { sanitiseWorkerName } from '../../../src/pool/login.js';
import {
  classicStatsAddressSchema,
  minerSchema,
  minerWorkersSchema,
} from '../../../src/servers/api/api-schemas.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { OTHER_WORKERS } from '../../../src/store/hashrate/worker-admission.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';

const NOW = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
const MINER = fuegoAddress(11);
const FARM = fuegoAddress(12);
const NOBODY = fuegoAddress(13);
/** Its worker was typed decomposed (o + U+0308) in a login; the pool keeps it composed (NFC). */
const POLYGLOT = fuegoAddress(14);
const POLYGLOT_WORKER = sanitiseWorkerName('Jo\u0308rg-矿机.1');

function share(address: string, worker: string, minutesAgo: number, difficulty = 6_000): AcceptedShare {
  const timestampMs = NOW - minutesAgo * 60_000;
  return { address, worker, difficulty, height: 990, timestampMs, solo: false, stale: false };
}

/**
 * A miner's workers in the API: hashrate, last share, offline after `workerOfflineMs` (native and
 * classic), per-worker charts bounded by `maxWorkerCharts`, and a miner with 10 000 worker names
 * bounded by the store's cap.
 */
describe('miner workers in the API', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  const keyPrefix = 'api-workers';

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const buckets = new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner: 50 }, { redis });
    // `rig-on` mines through the last 30 minutes; `rig-off` stopped 15 minutes ago (past the
    // 10-minute offline time); `__proto__` is a name a miner may choose and must stay a plain key.
    const shares: AcceptedShare[] = [];
    for (let minutesAgo = 30; minutesAgo >= 0; minutesAgo--) {
      shares.push(share(MINER, 'rig-on', minutesAgo));
      if (minutesAgo >= 15) shares.push(share(MINER, 'rig-off', minutesAgo, 600));
      if (minutesAgo === 2) shares.push(share(MINER, '__proto__', minutesAgo, 60));
      if (minutesAgo <= 2) shares.push(share(POLYGLOT, POLYGLOT_WORKER, minutesAgo));
    }
    await buckets.record(shares);
    // A farm cycling through 10 000 worker names.
    for (let batch = 0; batch < 10; batch++) {
      await buckets.record(
        Array.from({ length: 1_000 }, (_, i) => share(FARM, `rig${batch * 1_000 + i}`, 1, 60)),
      );
    }
    ({ app } = await buildTestApi({
      redis,
      keyPrefix,
      clock: () => NOW,
      options: { maxWorkerCharts: 2, workerOfflineMs: 600_000 },
    }));
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('GET /api/miners/:address: each worker with its last share and whether it is offline', async () => {
    const miner = minerSchema.parse((await app.inject({ url: `/api/miners/${MINER}` })).json());
    expect(miner.workers.map((w) => [w.name, w.lastShareMs, w.offline])).toEqual([
      ['rig-on', NOW, false],
      ['__proto__', NOW - 120_000, false],
      ['rig-off', NOW - 15 * 60_000, true],
    ]);
    expect(miner.workers[0]!.hashrate).toBeGreaterThan(0);
    expect(miner.workers[2]!.hashrate).toBe(0);
  });

  it('GET /api/miners/:address/workers: the charts of the first maxWorkerCharts workers', async () => {
    const reply = await app.inject({ url: `/api/miners/${MINER}/workers` });
    expect(reply.statusCode).toBe(200);
    const view = minerWorkersSchema.parse(reply.json());
    expect(view).toMatchObject({ address: MINER, offlineAfterSeconds: 600, chartResolutionSeconds: 600 });
    const [on, proto, off] = view.workers;
    expect(on!.chart).toHaveLength(144);
    // The last full 10-minute slot: 6 000 difficulty a minute.
    expect(on!.chart!.at(-2)!.hashrate).toBeCloseTo(100, 6);
    expect(proto!.chart!.some((point) => point.hashrate > 0)).toBe(true);
    expect(off).toMatchObject({ name: 'rig-off', offline: true, chart: null });

    const unknown = minerWorkersSchema.parse(
      (await app.inject({ url: `/api/miners/${NOBODY}/workers` })).json(),
    );
    expect(unknown.workers).toEqual([]);
    const bad = await app.inject({ url: '/api/miners/fireNotAnAddress/workers' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'INVALID_ADDRESS' } });
  });

  it('/stats_address: classic workers with `offline`, charts under charts.worker_hashrate', async () => {
    const json = (await app.inject({ url: `/stats_address?address=${MINER}` })).json();
    const reply = classicStatsAddressSchema.parse(json);
    if (!('workers' in reply)) throw new Error('expected a miner');
    expect(reply.workers).toEqual([
      // 10 shares of 6 000 over the window: 9 minutes and the current 30 s.
      {
        name: 'rig-on',
        hashrate: Math.round(60_000 / 570),
        lastShare: NOW / 1000,
        hashes: 0,
        offline: false,
      },
      {
        name: '__proto__',
        hashrate: expect.any(Number),
        lastShare: (NOW - 120_000) / 1000,
        hashes: 0,
        offline: false,
      },
      { name: 'rig-off', hashrate: 0, lastShare: (NOW - 900_000) / 1000, hashes: 0, offline: true },
    ]);
    // The reply as sent (zod's record parse leaves a "__proto__" key out).
    expect(Object.keys(json.charts.worker_hashrate)).toEqual(['rig-on', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(json.charts.worker_hashrate, '__proto__')?.value).toHaveLength(
      144,
    );
    const charts = reply.charts.worker_hashrate;
    expect(charts['rig-on']).toHaveLength(144);
    const lastSlotStartMs = Math.floor(NOW / 600_000) * 600_000;
    expect(charts['rig-on']!.at(-2)).toEqual([(lastSlotStartMs - 600_000) / 1000, 100, 1]);
  });

  it('bounds a miner with 10 000 worker names: 50 tracked plus (others), charts for 2', async () => {
    const workers = minerWorkersSchema.parse(
      (await app.inject({ url: `/api/miners/${FARM}/workers` })).json(),
    );
    expect(workers.workers).toHaveLength(51);
    expect(workers.workers.filter((w) => w.chart !== null)).toHaveLength(2);
    const others = workers.workers.find((w) => w.name === OTHER_WORKERS);
    const total = workers.workers.reduce((sum, w) => sum + w.hashrate, 0);
    expect(others!.hashrate / total).toBeCloseTo(9_950 / 10_000, 6);
    const classic = await app.inject({ url: `/stats_address?address=${FARM}` });
    expect(classic.payload.length).toBeLessThan(64 * 1024);
  });

  it('a worker named in another script: UTF-8 in its Redis keys, the same text from every API', async () => {
    expect(POLYGLOT_WORKER).toBe('J\u00f6rg-矿机.1');
    const keys = await redis.keysBuffer(`*:w:${POLYGLOT}:*`);
    expect(keys.map((key) => key.toString('utf8').endsWith(`:${POLYGLOT_WORKER}`))).toContain(true);
    const miner = minerSchema.parse((await app.inject({ url: `/api/miners/${POLYGLOT}` })).json());
    expect(miner.workers.map((w) => w.name)).toEqual([POLYGLOT_WORKER]);
    const view = minerWorkersSchema.parse(
      (await app.inject({ url: `/api/miners/${POLYGLOT}/workers` })).json(),
    );
    expect(view.workers.map((w) => w.name)).toEqual([POLYGLOT_WORKER]);
    const reply = await app.inject({ url: `/stats_address?address=${POLYGLOT}` });
    expect(reply.headers['content-type']).toContain('charset=utf-8');
    const classic = classicStatsAddressSchema.parse(reply.json());
    if (!('workers' in classic)) throw new Error('expected a miner');
    expect(classic.workers.map((w) => w.name)).toEqual([POLYGLOT_WORKER]);
  });
});
