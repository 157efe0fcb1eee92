import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { HashrateBatcher } from '../../../src/store/hashrate/hashrate-batcher.js';
import {
  HashrateBucketWriter,
  hashrateBucketCommands,
} from '../../../src/store/hashrate/hashrate-buckets.js';
import { createHashrateKeys, parseWorkerMember } from '../../../src/store/hashrate/hashrate-keys.js';
import { HashrateReader } from '../../../src/store/hashrate/hashrate-reader.js';
import { OTHER_WORKERS } from '../../../src/store/hashrate/worker-admission.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, makeShare, uniquePrefix } from '../store-fixtures.js';

/**
 * The start of an hour two hours ago, so minute arithmetic is easy to read. Buckets expire by
 * EXPIREAT against Redis' real clock, so the data must be recent.
 */
const HOUR_START = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000;

describe('hashrateBucketCommands', () => {
  const keys = createHashrateKeys('fuego');

  it('aggregates a batch of 256 shares into a handful of commands', () => {
    const shares = Array.from({ length: 256 }, (_, i) =>
      makeShare({
        address: ADDRESSES[i % 2]!,
        worker: `rig${i % 3}`,
        difficulty: 1000,
        timestampMs: HOUR_START + i,
      }),
    );
    const commands = hashrateBucketCommands(keys, shares, DEFAULT_MAX_WORKERS_PER_MINER);
    // pool minute + pool slot + 2 miners + 6 workers = 10 keys x (HINCRBY + EXPIREAT), 2 ZADD, 2 prunes,
    // 4 per miner.
    expect(commands).toHaveLength(10 * 2 + 4 + 2 * 4);
    const poolIncr = commands.find(
      (c) => c[0] === 'hincrby' && c[1] === keys.poolMinutes(HOUR_START / 3_600_000),
    );
    expect(poolIncr).toEqual(['hincrby', keys.poolMinutes(HOUR_START / 3_600_000), '0', '256000']);
  });

  it('sums every share into its pool, slot, miner and worker buckets, exactly also beyond 2^53', () => {
    const share = fc.record({
      miner: fc.integer({ min: 0, max: 1 }),
      worker: fc.constantFrom('rig0', 'rig1', ''),
      // Mostly small difficulties, some large enough to leave the safe-integer range when summed.
      difficulty: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
      // Three hours around an hour and a day boundary, so hours, days and slots change.
      offsetMs: fc.integer({ min: 0, max: 3 * 3_600_000 }),
    });
    fc.assert(
      fc.property(fc.array(share, { minLength: 1, maxLength: 60 }), (drawn) => {
        const dayStart = Math.floor(HOUR_START / 86_400_000) * 86_400_000;
        const shares = drawn.map((d) =>
          makeShare({
            address: ADDRESSES[d.miner]!,
            worker: d.worker,
            difficulty: d.difficulty,
            timestampMs: dayStart + 86_400_000 - 3_600_000 + d.offsetMs,
          }),
        );
        // The obvious per-share sums the aggregated commands must add up to.
        const expected = new Map<string, bigint>();
        const add = (key: string, field: string, d: number) =>
          expected.set(`${key} ${field}`, (expected.get(`${key} ${field}`) ?? 0n) + BigInt(d));
        for (const { address, worker, difficulty, timestampMs: ms } of shares) {
          const hour = Math.floor(ms / 3_600_000);
          const minute = String(Math.floor((ms % 3_600_000) / 60_000));
          add(keys.poolMinutes(hour), minute, difficulty);
          add(
            keys.poolSlots(Math.floor(ms / 86_400_000)),
            String(Math.floor((ms % 86_400_000) / 600_000)),
            difficulty,
          );
          add(keys.minerMinutes(hour, address), minute, difficulty);
          add(keys.workerMinutes(hour, address, worker), minute, difficulty);
        }
        const actual = new Map<string, bigint>();
        for (const [name, key, field, value] of hashrateBucketCommands(
          keys,
          shares,
          DEFAULT_MAX_WORKERS_PER_MINER,
        )) {
          if (name !== 'hincrby') continue;
          actual.set(`${key} ${field}`, (actual.get(`${key} ${field}`) ?? 0n) + BigInt(value!));
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('returns nothing for an empty batch', () => {
    expect(hashrateBucketCommands(keys, [], DEFAULT_MAX_WORKERS_PER_MINER)).toEqual([]);
  });

  it('splits a worker member at the first colon only', () => {
    expect(parseWorkerMember('fireabc:rig:1')).toEqual({ address: 'fireabc', worker: 'rig:1' });
    expect(() => parseWorkerMember('nocolon')).toThrow(expect.objectContaining({ code: 'CORRUPT_RECORD' }));
  });
});

describe('HashrateBucketWriter + HashrateReader', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /** A writer and a reader of one pool's keys; by default the config's cap of worker names. */
  const openStore = (keyPrefix: string, maxWorkersPerMiner = DEFAULT_MAX_WORKERS_PER_MINER) => ({
    writer: new HashrateBucketWriter({ keyPrefix, maxWorkersPerMiner }, { redis }),
    reader: new HashrateReader({ keyPrefix, maxWorkersPerMiner }, { redis }),
  });

  it('computes pool, miner and worker hashrate over a window and counts active miners', async () => {
    const keyPrefix = uniquePrefix('hashrate');
    const { writer, reader } = openStore(keyPrefix);
    // 10 minutes of shares: miner A 6000 difficulty per minute on two workers, miner B 600 per minute.
    for (let minute = 0; minute < 10; minute++) {
      const t = HOUR_START + minute * 60_000 + 1_000;
      await writer.record([
        makeShare({ address: ADDRESSES[0], worker: 'a1', difficulty: 3000, timestampMs: t }),
        makeShare({ address: ADDRESSES[0], worker: 'a2', difficulty: 3000, timestampMs: t }),
        makeShare({ address: ADDRESSES[1], worker: 'b1', difficulty: 600, timestampMs: t, solo: true }),
      ]);
    }
    const now = HOUR_START + 10 * 60_000; // exactly the start of minute 10: the window is minutes 1..10
    const window = 10 * 60_000;
    // 9 full minutes (1..9) of 6600 each over 540 s.
    expect(await reader.poolHashrate(now, window)).toBeCloseTo((9 * 6600) / 540, 6);
    expect(await reader.minerHashrate(ADDRESSES[0], now, window)).toBeCloseTo((9 * 6000) / 540, 6);
    const rates = await reader.minersHashrate([ADDRESSES[0], ADDRESSES[1], ADDRESSES[2]], now, window);
    expect(rates.get(ADDRESSES[1])).toBeCloseTo((9 * 600) / 540, 6);
    expect(rates.get(ADDRESSES[2])).toBe(0);
    const workers = await reader.minerWorkers(ADDRESSES[0], now, window);
    expect(workers.map((w) => w.name).sort()).toEqual(['a1', 'a2']);
    expect(workers[0]!.hashrate).toBeCloseTo((9 * 3000) / 540, 6);
    expect(await reader.activeCounts(now, window)).toEqual({ miners: 2, workers: 3 });
    expect(await reader.activeCounts(now + 60 * 60_000, window)).toEqual({ miners: 0, workers: 0 });
    expect(await reader.minerLastShareMs(ADDRESSES[0])).toBe(HOUR_START + 9 * 60_000 + 1_000);

    const chart = await reader.minerChart(ADDRESSES[0], now, 60 * 60_000, 10 * 60_000);
    expect(chart).toHaveLength(6);
    expect(chart.at(-2)).toEqual({ startMs: HOUR_START, hashrate: 60_000 / 600 });
    const poolChart = await reader.poolChart(now, 24 * 3_600_000);
    expect(poolChart).toHaveLength(144);
    expect(poolChart.at(-2)!.hashrate).toBeCloseTo(66_000 / 600, 6);
  });

  it('sets expiries and prunes idle workers from the active sets', async () => {
    const keyPrefix = uniquePrefix('hashrate-ttl');
    const keys = createHashrateKeys(keyPrefix);
    const retention = { minuteRetentionMs: 3_600_000, chartRetentionMs: 86_400_000 };
    const writer = new HashrateBucketWriter(
      { keyPrefix, retention, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    await writer.record([makeShare({ worker: 'old', timestampMs: HOUR_START })]);
    await writer.record([makeShare({ worker: 'new', timestampMs: HOUR_START + 2 * 3_600_000 })]);
    expect(await redis.zrange(keys.activeWorkers, 0, -1)).toEqual([`${ADDRESSES[0]}:new`]);
    expect(await redis.zrange(keys.minerWorkers(ADDRESSES[0]), 0, -1)).toEqual(['new']);
    const hour = HOUR_START / 3_600_000 + 2;
    const expireAt = await redis.call('expiretime', keys.minerMinutes(hour, ADDRESSES[0]));
    expect(expireAt).toBe(((hour + 1) * 3_600_000 + 3_600_000) / 1000);
  });

  it('HashrateBatcher: many small ledger batches become one write per interval; stop() writes the rest', async () => {
    const keyPrefix = uniquePrefix('hashrate-batched');
    const { writer } = openStore(keyPrefix);
    const writes: number[] = [];
    const errors: number[] = [];
    const batcher = new HashrateBatcher(
      { flushIntervalMs: 50 },
      {
        record: async (shares) => {
          writes.push(shares.length);
          await writer.record(shares);
        },
        onError: (_error, shares) => errors.push(shares),
      },
    );
    const t = HOUR_START + 1_000;
    for (let i = 0; i < 100; i++) batcher.add([makeShare({ difficulty: 10, timestampMs: t })]);
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(writes).toEqual([100]);
    batcher.add([makeShare({ difficulty: 5, timestampMs: t })]);
    await batcher.stop();
    batcher.add([makeShare({ difficulty: 1_000, timestampMs: t })]); // after stop: ignored
    await batcher.flush();
    expect(writes).toEqual([100, 1]);
    expect(errors).toEqual([]);
    // Every share counted once: minute 0 of the pool's bucket holds 100 x 10 + 5.
    const keys = createHashrateKeys(keyPrefix);
    expect(await redis.hget(keys.poolMinutes(HOUR_START / 3_600_000), '0')).toBe('1005');
  });

  it('HashrateBatcher: a full buffer flushes early, and a failed write is reported, not retried', async () => {
    const writes: number[] = [];
    const errors: number[] = [];
    const batcher = new HashrateBatcher(
      { flushIntervalMs: 60_000, maxPendingShares: 3 },
      {
        record: async (shares) => {
          writes.push(shares.length);
          if (writes.length === 1) throw new Error('redis down');
        },
        onError: (_error, shares) => errors.push(shares),
      },
    );
    batcher.add([makeShare({}), makeShare({})]);
    batcher.add([makeShare({})]);
    await batcher.flush();
    expect(writes).toEqual([3]);
    expect(errors).toEqual([3]);
    batcher.add([makeShare({})]);
    await batcher.stop();
    expect(writes).toEqual([3, 1]);
    expect(errors).toEqual([3]);
  });

  it('refuses corrupt bucket values instead of reading them as zero', async () => {
    const keyPrefix = uniquePrefix('hashrate-bad');
    const keys = createHashrateKeys(keyPrefix);
    await redis.hset(keys.poolMinutes(HOUR_START / 3_600_000), '0', 'abc');
    const { reader } = openStore(keyPrefix);
    await expect(reader.poolHashrate(HOUR_START + 1_000, 60_000)).rejects.toMatchObject({
      code: 'CORRUPT_RECORD',
    });
  });

  it('keeps statistics for at most maxWorkersPerMiner names; later names count under (others)', async () => {
    const keyPrefix = uniquePrefix('hashrate-cap');
    const keys = createHashrateKeys(keyPrefix);
    const { writer, reader } = openStore(keyPrefix, 3);
    const t = HOUR_START + 5 * 60_000;
    // 10 000 names in a few batches, from one miner; the other miner's workers are not affected.
    for (let batch = 0; batch < 10; batch++) {
      await writer.record(
        Array.from({ length: 1_000 }, (_, i) =>
          makeShare({ worker: `w${batch * 1_000 + i}`, difficulty: 60, timestampMs: t + batch }),
        ),
      );
    }
    await writer.record([
      makeShare({ worker: 'w0', difficulty: 60, timestampMs: t + 20 }),
      makeShare({ address: ADDRESSES[1], worker: 'b1', difficulty: 60, timestampMs: t }),
    ]);
    const members = await redis.zrange(keys.minerWorkers(ADDRESSES[0]), 0, -1);
    expect(members.sort()).toEqual([OTHER_WORKERS, 'w0', 'w1', 'w2']);
    expect(await redis.zrange(keys.minerWorkers(ADDRESSES[1]), 0, -1)).toEqual(['b1']);
    // No minute bucket of a refused name exists; their difficulty is all in (others).
    expect(await redis.exists(keys.workerMinutes(HOUR_START / 3_600_000, ADDRESSES[0], 'w3'))).toBe(0);
    const workers = await reader.minerWorkers(ADDRESSES[0], t + 60_000, 120_000);
    const difficultyOf = (name: string) =>
      Math.round((workers.find((w) => w.name === name)?.hashrate ?? 0) * 60);
    expect(workers).toHaveLength(4);
    expect(difficultyOf(OTHER_WORKERS)).toBe(9_997 * 60);
    expect(difficultyOf('w0')).toBe(120);
    // The miner's own total counts every share.
    expect(Math.round((await reader.minerHashrate(ADDRESSES[0], t + 60_000, 120_000)) * 60)).toBe(
      10_001 * 60,
    );
  });

  it('draws per-worker charts like the miner chart, one pipeline for all', async () => {
    const keyPrefix = uniquePrefix('hashrate-wcharts');
    const { writer, reader } = openStore(keyPrefix);
    for (let minute = 0; minute < 20; minute++) {
      await writer.record([
        makeShare({ worker: 'a', difficulty: 600, timestampMs: HOUR_START + minute * 60_000 }),
        makeShare({ worker: 'b', difficulty: 60, timestampMs: HOUR_START + minute * 60_000 }),
      ]);
    }
    const now = HOUR_START + 20 * 60_000;
    const [a, b, none] = await reader.workerCharts(
      ADDRESSES[0],
      ['a', 'b', 'nobody'],
      now,
      3_600_000,
      600_000,
    );
    const miner = await reader.minerChart(ADDRESSES[0], now, 3_600_000, 600_000);
    expect(a).toHaveLength(miner.length);
    expect(a!.at(-2)).toEqual({ startMs: HOUR_START + 600_000, hashrate: 10 });
    expect(b!.at(-2)).toEqual({ startMs: HOUR_START + 600_000, hashrate: 1 });
    expect(none!.every((point) => point.hashrate === 0)).toBe(true);
    expect(miner.at(-2)!.hashrate).toBeCloseTo(11, 9);
    expect(await reader.workerCharts(ADDRESSES[0], [], now, 3_600_000, 600_000)).toEqual([]);
  });
});
