import type { Redis } from 'ioredis';
import type { AcceptedShare } from '../../model/share-ledger.js';
import { StoreError, toStoreError } from '../store-error.js';
import {
  createHashrateKeys,
  DAY_MS,
  type HashrateKeys,
  HOUR_MS,
  MINUTE_MS,
  POOL_SLOT_MS,
  workerMember,
} from './hashrate-keys.js';
import { admitWorkers, checkMaxWorkersPerMiner } from './worker-admission.js';

/** Minute buckets of miners, workers and the pool are kept this long (key layout: hashrate-keys.ts). */
export const DEFAULT_MINUTE_RETENTION_MS = 24 * HOUR_MS;
/** The pool's 10-minute chart is kept this long. */
export const DEFAULT_CHART_RETENTION_MS = 7 * DAY_MS;

export interface HashrateRetention {
  readonly minuteRetentionMs: number;
  readonly chartRetentionMs: number;
}

export const DEFAULT_HASHRATE_RETENTION: HashrateRetention = Object.freeze({
  minuteRetentionMs: DEFAULT_MINUTE_RETENTION_MS,
  chartRetentionMs: DEFAULT_CHART_RETENTION_MS,
});

/** One Redis command as ioredis' pipeline() takes it: name, then arguments. */
export type RedisCommand = [string, ...string[]];

class BucketSums {
  /** key -> field -> summed difficulty */
  readonly #sums = new Map<string, Map<string, bigint>>();
  /** key -> EXPIREAT seconds */
  readonly #expiry = new Map<string, number>();

  add(key: string, field: string, difficulty: bigint, expireAtSec: number): void {
    let fields = this.#sums.get(key);
    if (fields === undefined) {
      fields = new Map();
      this.#sums.set(key, fields);
      this.#expiry.set(key, expireAtSec);
    }
    fields.set(field, (fields.get(field) ?? 0n) + difficulty);
  }

  commands(out: RedisCommand[]): void {
    for (const [key, fields] of this.#sums) {
      for (const [field, sum] of fields) out.push(['hincrby', key, field, sum.toString()]);
      out.push(['expireat', key, String(this.#expiry.get(key))]);
    }
  }
}

const MINUTES_PER_HOUR = HOUR_MS / MINUTE_MS;
const MINUTES_PER_DAY = DAY_MS / MINUTE_MS;
const MINUTES_PER_SLOT = POOL_SLOT_MS / MINUTE_MS;

/** One worker's shares in a batch: summed difficulty per minute since the epoch, newest share time. */
interface WorkerMinutes {
  readonly minutes: Map<number, number | bigint>;
  lastMs: number;
}

/** sum + difficulty, exact: a number while the total is a safe integer, a bigint beyond. */
function addDifficulty(sum: number | bigint | undefined, difficulty: number): number | bigint {
  if (sum === undefined) return difficulty;
  if (typeof sum === 'bigint') return sum + BigInt(difficulty);
  const next = sum + difficulty;
  return Number.isSafeInteger(next) ? next : BigInt(sum) + BigInt(difficulty);
}

function checkRetention(retention: HashrateRetention): void {
  for (const [name, value] of Object.entries(retention)) {
    if (!Number.isSafeInteger(value) || value < MINUTE_MS) {
      throw new StoreError('INVALID_OPTION', `${name} must be an integer >= ${MINUTE_MS}`, { name, value });
    }
  }
}

/**
 * The Redis commands that add one batch of accepted shares to the hashrate buckets. Everything is
 * summed here first (bigint), so a batch of 256 shares from 40 miners on 60 workers costs about
 * 2 commands per distinct bucket key, 3 per miner and 4 more for the whole batch - not one entry
 * per share. Commands are idempotent only per batch: send each batch once (stats, not money: a
 * lost or doubled batch skews a chart for a minute, it never moves a balance).
 *
 * Per batch: HINCRBY per (key, minute) and EXPIREAT per key for pool minutes, pool 10-minute
 * slots, miner minutes and worker minutes; ZADD of the active miners and workers; per miner ZADD
 * of its workers, ZREMRANGEBYSCORE (prune), ZREMRANGEBYRANK (keeps the `maxWorkersPerMiner` + 1
 * most recent: the cap and OTHER_WORKERS, worker-admission.ts) and PEXPIRE; ZREMRANGEBYSCORE of
 * both active sets.
 */
export function hashrateBucketCommands(
  keys: HashrateKeys,
  shares: readonly AcceptedShare[],
  maxWorkersPerMiner: number,
  retention: HashrateRetention = DEFAULT_HASHRATE_RETENTION,
): RedisCommand[] {
  if (shares.length === 0) return [];
  const minuteRetentionSec = Math.ceil(retention.minuteRetentionMs / 1000);
  const chartRetentionSec = Math.ceil(retention.chartRetentionMs / 1000);
  // Per share only a few map lookups and an addition: this runs on the event loop for every
  // accepted share. The bucket keys and strings are built once per (miner, worker, minute).
  const miners = new Map<string, Map<string, WorkerMinutes>>();
  let newestMs = 0;
  for (const share of shares) {
    let workers = miners.get(share.address);
    if (workers === undefined) {
      workers = new Map();
      miners.set(share.address, workers);
    }
    let worker = workers.get(share.worker);
    if (worker === undefined) {
      worker = { minutes: new Map(), lastMs: 0 };
      workers.set(share.worker, worker);
    }
    const ms = share.timestampMs;
    if (ms > worker.lastMs) worker.lastMs = ms;
    if (ms > newestMs) newestMs = ms;
    const minute = Math.floor(ms / MINUTE_MS);
    worker.minutes.set(minute, addDifficulty(worker.minutes.get(minute), share.difficulty));
  }

  const sums = new BucketSums();
  const minerLast = new Map<string, number>();
  const workerLast = new Map<string, number>();
  const workersOfMiner = new Map<string, Map<string, number>>();
  for (const [address, workers] of miners) {
    const lastOfWorkers = new Map<string, number>();
    workersOfMiner.set(address, lastOfWorkers);
    let minerLastMs = 0;
    for (const [workerName, worker] of workers) {
      lastOfWorkers.set(workerName, worker.lastMs);
      workerLast.set(workerMember(address, workerName), worker.lastMs);
      minerLastMs = Math.max(minerLastMs, worker.lastMs);
      for (const [minute, sum] of worker.minutes) {
        const difficulty = BigInt(sum);
        const hour = Math.floor(minute / MINUTES_PER_HOUR);
        const minuteOfHour = String(minute % MINUTES_PER_HOUR);
        const hourExpireSec = ((hour + 1) * HOUR_MS) / 1000 + minuteRetentionSec;
        const day = Math.floor(minute / MINUTES_PER_DAY);
        sums.add(keys.poolMinutes(hour), minuteOfHour, difficulty, hourExpireSec);
        sums.add(
          keys.poolSlots(day),
          String(Math.floor((minute % MINUTES_PER_DAY) / MINUTES_PER_SLOT)),
          difficulty,
          ((day + 1) * DAY_MS) / 1000 + chartRetentionSec,
        );
        sums.add(keys.minerMinutes(hour, address), minuteOfHour, difficulty, hourExpireSec);
        sums.add(keys.workerMinutes(hour, address, workerName), minuteOfHour, difficulty, hourExpireSec);
      }
    }
    minerLast.set(address, minerLastMs);
  }
  const commands: RedisCommand[] = [];
  sums.commands(commands);
  const pruneBefore = `(${newestMs - retention.minuteRetentionMs}`;
  commands.push(zadd(keys.activeMiners, minerLast), zadd(keys.activeWorkers, workerLast));
  commands.push(['zremrangebyscore', keys.activeMiners, '-inf', pruneBefore]);
  commands.push(['zremrangebyscore', keys.activeWorkers, '-inf', pruneBefore]);
  for (const [address, workers] of workersOfMiner) {
    const key = keys.minerWorkers(address);
    commands.push(zadd(key, workers));
    commands.push(['zremrangebyscore', key, '-inf', pruneBefore]);
    commands.push(['zremrangebyrank', key, '0', String(-(maxWorkersPerMiner + 2))]);
    commands.push(['pexpire', key, String(retention.minuteRetentionMs)]);
  }
  return commands;
}

/** ZADD of members scored by their last share. */
function zadd(key: string, entries: Map<string, number>): RedisCommand {
  const args: string[] = [];
  for (const [member, score] of entries) args.push(String(score), member);
  return ['zadd', key, ...args];
}

export interface HashrateBucketWriterOptions {
  readonly keyPrefix: string;
  readonly retention?: HashrateRetention;
  /** Worker names with statistics per miner (`store.maxWorkersPerMiner`); further names count as OTHER_WORKERS. */
  readonly maxWorkersPerMiner: number;
}

/**
 * Sends hashrateBucketCommands() of a group of recorded shares in one pipeline, after one read
 * that caps the worker names per miner (admitWorkers): two round trips per group. The stratum
 * role calls it through HashrateBatcher, once a second with every share the ledger made durable
 * in that second.
 */
export class HashrateBucketWriter {
  readonly #redis: Redis;
  readonly #keys: HashrateKeys;
  readonly #retention: HashrateRetention;
  readonly #maxWorkersPerMiner: number;

  constructor(opts: HashrateBucketWriterOptions, modules: { readonly redis: Redis }) {
    this.#redis = modules.redis;
    this.#keys = createHashrateKeys(opts.keyPrefix);
    this.#retention = opts.retention ?? DEFAULT_HASHRATE_RETENTION;
    this.#maxWorkersPerMiner = opts.maxWorkersPerMiner;
    checkRetention(this.#retention);
    checkMaxWorkersPerMiner(this.#maxWorkersPerMiner);
  }

  get keys(): HashrateKeys {
    return this.#keys;
  }

  async record(shares: readonly AcceptedShare[]): Promise<void> {
    if (shares.length === 0) return;
    const admitted = await admitWorkers(this.#redis, this.#keys, shares, this.#maxWorkersPerMiner);
    const commands = hashrateBucketCommands(this.#keys, admitted, this.#maxWorkersPerMiner, this.#retention);
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await this.#redis.pipeline(commands).exec();
    } catch (error) {
      throw toStoreError(error, 'hashrate buckets', { shares: shares.length });
    }
    const failed = replies?.find(([error]) => error !== null);
    if (failed?.[0]) throw toStoreError(failed[0], 'hashrate buckets', { shares: shares.length });
  }
}
