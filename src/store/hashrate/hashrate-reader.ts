import type { Redis } from 'ioredis';
import { execStorePipeline, runStoreCommand, StoreError } from '../store-error.js';
import {
  createHashrateKeys,
  DAY_MS,
  type HashrateKeys,
  HOUR_MS,
  MINUTE_MS,
  POOL_SLOT_MS,
} from './hashrate-keys.js';

const MAX_CHART_SPAN_MS = 7 * DAY_MS;

export interface ChartPoint {
  /** Start of the slot, epoch ms. */
  readonly startMs: number;
  /** Average hashrate over the slot (H/s); the current slot is averaged over its elapsed part. */
  readonly hashrate: number;
}

export interface WorkerHashrate {
  readonly name: string;
  readonly hashrate: number;
  readonly lastShareMs: number;
}

/** A miner among the top by hashrate over a window. */
export interface TopMiner {
  readonly address: string;
  readonly hashrate: number;
  readonly activeWorkers: number;
  readonly lastShareMs: number;
}

export interface ActiveCounts {
  readonly miners: number;
  readonly workers: number;
}

function parseSum(value: unknown, key: string): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value !== 'string' || !/^-?\d{1,20}$/.test(value)) {
    throw new StoreError('CORRUPT_RECORD', 'corrupt hashrate bucket', { key, value });
  }
  return BigInt(value);
}

/**
 * Which minute buckets make a window ending at `nowMs`: the current (partial) minute and the
 * `minutes - 1` before it, grouped by hour key, plus the seconds they span (so the partial
 * minute is not counted as a full one).
 */
function windowBuckets(nowMs: number, windowMs: number): { byHour: Map<number, string[]>; spanSec: number } {
  const minutes = Math.max(1, Math.round(windowMs / MINUTE_MS));
  const currentMinute = Math.floor(nowMs / MINUTE_MS);
  const byHour = new Map<number, string[]>();
  for (let m = currentMinute - minutes + 1; m <= currentMinute; m++) {
    const hour = Math.floor((m * MINUTE_MS) / HOUR_MS);
    const fields = byHour.get(hour) ?? [];
    fields.push(String(m % 60));
    byHour.set(hour, fields);
  }
  const spanSec = (minutes - 1) * 60 + (nowMs - currentMinute * MINUTE_MS) / 1000;
  return { byHour, spanSec: Math.max(1, spanSec) };
}

function toHashrate(sum: bigint, spanSec: number): number {
  return Number(sum) / spanSec;
}

/**
 * Reads the buckets HashrateBucketWriter fills. Every call is a bounded number of commands in one
 * pipeline: a window of N minutes is at most ceil(N/60)+1 HMGETs per entity, a 24 h chart 25
 * HGETALLs, the pool's 7-day chart 8 - independent of the number of miners.
 */
export class HashrateReader {
  readonly #redis: Redis;
  readonly #keys: HashrateKeys;
  readonly #maxWorkers: number;

  constructor(
    opts: {
      readonly keyPrefix: string;
      /** The writer's cap (`store.maxWorkersPerMiner`): a miner's workers are listed whole, "(others)" too. */
      readonly maxWorkersPerMiner: number;
    },
    modules: { readonly redis: Redis },
  ) {
    this.#redis = modules.redis;
    this.#keys = createHashrateKeys(opts.keyPrefix);
    this.#maxWorkers = opts.maxWorkersPerMiner + 1;
  }

  /** Pool hashrate (H/s) over the window ending now. */
  async poolHashrate(nowMs: number, windowMs: number): Promise<number> {
    const [rate] = await this.#windowRates([(hour) => this.#keys.poolMinutes(hour)], nowMs, windowMs);
    return rate ?? 0;
  }

  async minerHashrate(address: string, nowMs: number, windowMs: number): Promise<number> {
    const [rate] = await this.#windowRates(
      [(hour) => this.#keys.minerMinutes(hour, address)],
      nowMs,
      windowMs,
    );
    return rate ?? 0;
  }

  /** Hashrates of many miners in one pipeline (the live feed's subscriptions). */
  async minersHashrate(
    addresses: readonly string[],
    nowMs: number,
    windowMs: number,
  ): Promise<Map<string, number>> {
    const rates = await this.#windowRates(
      addresses.map((address) => (hour: number) => this.#keys.minerMinutes(hour, address)),
      nowMs,
      windowMs,
    );
    return new Map(addresses.map((address, index) => [address, rates[index] ?? 0]));
  }

  /** Miners and workers with a share since `nowMs - windowMs`. */
  async activeCounts(nowMs: number, windowMs: number): Promise<ActiveCounts> {
    const since = String(nowMs - windowMs);
    const pipeline = this.#redis.pipeline();
    pipeline.zcount(this.#keys.activeMiners, since, '+inf');
    pipeline.zcount(this.#keys.activeWorkers, since, '+inf');
    const [miners, workers] = await execStorePipeline('activeCounts', pipeline);
    return { miners: Number(miners ?? 0), workers: Number(workers ?? 0) };
  }

  /** Last share time of a miner (ms), or null if it has none within the retention. */
  /**
   * The `limit` miners with the highest hashrate over the window, chosen among the
   * `maxCandidates` most recently active ones (a miner with a real share of the pool submits every
   * few seconds, so it is among them; the bound keeps the read at 2 x that many HMGETs).
   */
  async topMiners(
    limit: number,
    nowMs: number,
    windowMs: number,
    maxCandidates: number,
  ): Promise<TopMiner[]> {
    const since = String(nowMs - windowMs);
    const flat = await runStoreCommand('topMiners', () =>
      this.#redis.zrevrangebyscore(
        this.#keys.activeMiners,
        '+inf',
        since,
        'WITHSCORES',
        'LIMIT',
        0,
        maxCandidates,
      ),
    );
    const lastShare = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) lastShare.set(flat[i]!, Number(flat[i + 1]));
    const rates = await this.minersHashrate([...lastShare.keys()], nowMs, windowMs);
    const top = [...rates].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
    if (top.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const [address] of top) pipeline.zcount(this.#keys.minerWorkers(address), since, '+inf');
    const workerCounts = (await runStoreCommand('topMiners', () => pipeline.exec())) ?? [];
    return top.map(([address, hashrate], index) => {
      const reply = workerCounts[index];
      return {
        address,
        hashrate,
        activeWorkers: reply === undefined || reply[0] !== null ? 0 : Number(reply[1]),
        lastShareMs: lastShare.get(address) ?? 0,
      };
    });
  }

  /** The most recent share of any miner (ms), or null if none is within the retention. */
  async poolLastShareMs(): Promise<number | null> {
    const newest = await runStoreCommand('poolLastShareMs', () =>
      this.#redis.zrevrange(this.#keys.activeMiners, 0, 0, 'WITHSCORES'),
    );
    return newest[1] === undefined ? null : Number(newest[1]);
  }

  async minerLastShareMs(address: string): Promise<number | null> {
    const score = await runStoreCommand('minerLastShareMs', () =>
      this.#redis.zscore(this.#keys.activeMiners, address),
    );
    return score === null ? null : Number(score);
  }

  /**
   * Workers of a miner seen within the retention, most recent first, with their hashrate over
   * the window (0 for a worker idle through the whole window).
   */
  async minerWorkers(address: string, nowMs: number, windowMs: number): Promise<WorkerHashrate[]> {
    const workers = await this.#workerList(address);
    const rates = await this.#windowRates(
      workers.map((w) => (hour: number) => this.#keys.workerMinutes(hour, address, w.name)),
      nowMs,
      windowMs,
    );
    return workers.map((w, index) => ({ ...w, hashrate: rates[index] ?? 0 }));
  }

  /**
   * minerWorkers, and the charts of its first `charted.count` workers as workerCharts draws them:
   * each charted worker's buckets are read once for its hashrate and its chart.
   */
  async minerWorkersCharted(
    address: string,
    nowMs: number,
    windowMs: number,
    charted: { readonly count: number; readonly spanMs: number; readonly resolutionMs: number },
  ): Promise<{ workers: WorkerHashrate[]; charts: ChartPoint[][] }> {
    const workers = await this.#workerList(address);
    const keysOf = (list: readonly { name: string }[]) =>
      list.map((w) => (hour: number) => this.#keys.workerMinutes(hour, address, w.name));
    const first = workers.slice(0, charted.count);
    const [read, rates] = await Promise.all([
      this.#chartsAndRates(keysOf(first), nowMs, charted, windowMs),
      this.#windowRates(keysOf(workers.slice(first.length)), nowMs, windowMs),
    ]);
    return {
      workers: workers.map((w, index) => ({
        ...w,
        hashrate: (index < first.length ? read[index]?.hashrate : rates[index - first.length]) ?? 0,
      })),
      charts: read.map((entity) => entity.chart),
    };
  }

  /** A miner's workers seen within the retention, most recent first (the writer's cap, "(others)" too). */
  async #workerList(address: string): Promise<{ name: string; lastShareMs: number }[]> {
    const flat = await runStoreCommand('minerWorkers', () =>
      this.#redis.zrevrange(this.#keys.minerWorkers(address), 0, this.#maxWorkers - 1, 'WITHSCORES'),
    );
    const workers: { name: string; lastShareMs: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      workers.push({ name: flat[i]!, lastShareMs: Number(flat[i + 1]) });
    }
    return workers;
  }

  /** A miner's hashrate over the window and its chart (minerHashrate, minerChart) from one read of its buckets. */
  async minerHashrateAndChart(
    address: string,
    nowMs: number,
    windowMs: number,
    chart: { readonly spanMs: number; readonly resolutionMs: number },
  ): Promise<{ hashrate: number; chart: ChartPoint[] }> {
    const [read] = await this.#chartsAndRates(
      [(hour) => this.#keys.minerMinutes(hour, address)],
      nowMs,
      chart,
      windowMs,
    );
    return read ?? { hashrate: 0, chart: [] };
  }

  /** A miner's hashrate chart from its minute buckets, `resolutionMs` per point (multiple of a minute). */
  async minerChart(
    address: string,
    nowMs: number,
    spanMs: number,
    resolutionMs: number,
  ): Promise<ChartPoint[]> {
    const [chart] = await this.#minuteCharts(
      [(hour) => this.#keys.minerMinutes(hour, address)],
      nowMs,
      spanMs,
      resolutionMs,
    );
    return chart ?? [];
  }

  /**
   * The charts of some of a miner's workers, in the order of `workers`, as minerChart() draws the
   * miner's: one pipeline of (span in hours + 1) HGETALLs per worker, so callers bound `workers`.
   */
  async workerCharts(
    address: string,
    workers: readonly string[],
    nowMs: number,
    spanMs: number,
    resolutionMs: number,
  ): Promise<ChartPoint[][]> {
    return this.#minuteCharts(
      workers.map((worker) => (hour: number) => this.#keys.workerMinutes(hour, address, worker)),
      nowMs,
      spanMs,
      resolutionMs,
    );
  }

  /** The pool's chart from its 10-minute slots (up to 7 days). */
  async poolChart(nowMs: number, spanMs: number): Promise<ChartPoint[]> {
    const span = Math.min(Math.max(spanMs, POOL_SLOT_MS), MAX_CHART_SPAN_MS);
    const lastSlot = Math.floor(nowMs / POOL_SLOT_MS);
    const firstSlot = lastSlot - Math.ceil(span / POOL_SLOT_MS) + 1;
    const firstDay = Math.floor((firstSlot * POOL_SLOT_MS) / DAY_MS);
    const lastDay = Math.floor(nowMs / DAY_MS);
    const pipeline = this.#redis.pipeline();
    for (let day = firstDay; day <= lastDay; day++) pipeline.hgetall(this.#keys.poolSlots(day));
    const replies = await execStorePipeline('poolChart', pipeline);
    const sums = new Map<number, bigint>();
    replies.forEach((reply, index) => {
      const day = firstDay + index;
      const key = this.#keys.poolSlots(day);
      for (const [field, value] of Object.entries(reply as Record<string, string>)) {
        sums.set(day * (DAY_MS / POOL_SLOT_MS) + Number(field), parseSum(value, key));
      }
    });
    return this.#points(sums, firstSlot, lastSlot, POOL_SLOT_MS, nowMs);
  }

  /** For each entity (a function from hour to its minute key): its chart, all in one pipeline. */
  async #minuteCharts(
    entities: readonly ((hour: number) => string)[],
    nowMs: number,
    spanMs: number,
    resolutionMs: number,
  ): Promise<ChartPoint[][]> {
    const read = await this.#chartsAndRates(entities, nowMs, { spanMs, resolutionMs }, null);
    return read.map((entity) => entity.chart);
  }

  /**
   * For each entity: its chart and, given `windowMs`, its hashrate over the window (as
   * #windowRates reckons it), from one HGETALL of each hour key either needs: one pipeline.
   */
  async #chartsAndRates(
    entities: readonly ((hour: number) => string)[],
    nowMs: number,
    chart: { readonly spanMs: number; readonly resolutionMs: number },
    windowMs: number | null,
  ): Promise<{ chart: ChartPoint[]; hashrate: number }[]> {
    const { resolutionMs } = chart;
    if (!Number.isSafeInteger(resolutionMs) || resolutionMs < MINUTE_MS || resolutionMs % MINUTE_MS !== 0) {
      throw new StoreError('INVALID_OPTION', 'chart resolution must be a whole number of minutes', {
        resolutionMs,
      });
    }
    if (entities.length === 0) return [];
    const span = Math.min(Math.max(chart.spanMs, resolutionMs), DAY_MS);
    const lastSlot = Math.floor(nowMs / resolutionMs);
    const firstSlot = lastSlot - Math.ceil(span / resolutionMs) + 1;
    const firstHour = Math.floor((firstSlot * resolutionMs) / HOUR_MS);
    const lastHour = Math.floor(nowMs / HOUR_MS);
    const window = windowMs === null ? null : windowBuckets(nowMs, windowMs);
    const hourSet = new Set(window?.byHour.keys());
    for (let hour = firstHour; hour <= lastHour; hour++) hourSet.add(hour);
    const hours = [...hourSet].sort((a, b) => a - b);
    const pipeline = this.#redis.pipeline();
    for (const keyOf of entities) for (const hour of hours) pipeline.hgetall(keyOf(hour));
    const replies = await execStorePipeline('chart', pipeline);
    return entities.map((keyOf, e) => {
      const byHour = new Map(
        hours.map((hour, h) => [hour, replies[e * hours.length + h] as Record<string, string>]),
      );
      const sums = new Map<number, bigint>();
      for (let hour = firstHour; hour <= lastHour; hour++) {
        const key = keyOf(hour);
        for (const [field, value] of Object.entries(byHour.get(hour) ?? {})) {
          const slot = Math.floor((hour * HOUR_MS + Number(field) * MINUTE_MS) / resolutionMs);
          sums.set(slot, (sums.get(slot) ?? 0n) + parseSum(value, key));
        }
      }
      let windowSum = 0n;
      for (const [hour, fields] of window?.byHour ?? []) {
        const minutes = byHour.get(hour) ?? {};
        for (const field of fields)
          windowSum += parseSum(Object.hasOwn(minutes, field) ? minutes[field] : null, keyOf(hour));
      }
      return {
        chart: this.#points(sums, firstSlot, lastSlot, resolutionMs, nowMs),
        hashrate: window === null ? 0 : toHashrate(windowSum, window.spanSec),
      };
    });
  }

  #points(
    sums: Map<number, bigint>,
    first: number,
    last: number,
    slotMs: number,
    nowMs: number,
  ): ChartPoint[] {
    const points: ChartPoint[] = [];
    for (let slot = first; slot <= last; slot++) {
      const startMs = slot * slotMs;
      const spanSec = slot === last ? Math.max(1, (nowMs - startMs) / 1000) : slotMs / 1000;
      points.push({ startMs, hashrate: toHashrate(sums.get(slot) ?? 0n, spanSec) });
    }
    return points;
  }

  /** For each entity (a function from hour to its minute key): its hashrate over the window. */
  async #windowRates(
    entities: readonly ((hour: number) => string)[],
    nowMs: number,
    windowMs: number,
  ): Promise<number[]> {
    if (entities.length === 0) return [];
    const { byHour, spanSec } = windowBuckets(nowMs, windowMs);
    const pipeline = this.#redis.pipeline();
    const keys: string[] = [];
    for (const keyOf of entities) {
      for (const [hour, fields] of byHour) {
        const key = keyOf(hour);
        keys.push(key);
        pipeline.hmget(key, ...fields);
      }
    }
    const replies = await execStorePipeline('hashrate', pipeline);
    const perEntity = byHour.size;
    return entities.map((_, e) => {
      let sum = 0n;
      for (let h = 0; h < perEntity; h++) {
        const index = e * perEntity + h;
        for (const value of replies[index] as (string | null)[]) sum += parseSum(value, keys[index]!);
      }
      return toHashrate(sum, spanSec);
    });
  }
}
