/**
 * What the pool owes, read at scale: N miners with a payable balance (10,000 and 100,000) in a
 * private Redis, then, timed, the sum of the balances above zero (positiveBalanceTotal: its first
 * call sums the index and stores the sum, the seeding kept none), its full audit (what
 * `fuego-pool report` runs), the solvency read a /metrics scrape makes, a whole /metrics render, a payout pass's listPayable
 * (5,000 miners) and credit_block of 1,000 credits (the cost a balance change pays). Each row also
 * says how many commands Redis processed for one call (INFO total_commands_processed, less the
 * INFO itself), which does not move with the machine's load. Prints a table, then, as its last
 * line, one JSON object. Figures, not a test: nothing passes or fails.
 *
 *   npx tsc -p tsconfig.bench.json && node build/bench/benchmarks/api/owed-total.js
 *
 * On a shared machine the times move with the neighbours' load (the load average is printed).
 */
import { loadavg } from 'node:os';
import type { Redis } from 'ioredis';
import { readSolvencySnapshot } from '../../src/app/money-report.js';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { createPoolMetrics } from '../../src/servers/api/api-metrics.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../src/store/payments/unlocker-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { RedisShareLedger } from '../../src/store/shares/redis-share-ledger.js';
import { startPrivateRedis } from '../../src/tools/redis-server.js';

const SIZES = [10_000, 100_000] as const;
const REPEATS = 20;
const PAYABLE_PAGE = 5_000;
const CREDITS_PER_BLOCK = 1_000;
const BLOCKS_CREDITED = 5;
const SEED_CHUNK = 2_000;

const wallet = {
  getBalance: async () => ({
    availableBalance: 1e15,
    lockedAmount: 0,
    lockedDepositBalance: 0,
    unlockedDepositBalance: 0,
  }),
};

interface Row {
  readonly firstMs: number;
  readonly p50Ms: number;
  readonly maxMs: number;
  /** Commands Redis processed for one call (after the first). */
  readonly commands: number;
}

function address(i: number): string {
  return `fireBench${String(i).padStart(86, '0')}`;
}

/**
 * N miners with balance 1..N atomic units (times 1,000), written as credit_block leaves them
 * (balance hash, payable index, totals), pipelined: what is timed is the reading, not the seeding.
 */
async function seed(redis: Redis, keyPrefix: string, miners: number): Promise<bigint> {
  const keys = createPaymentKeys(keyPrefix);
  let total = 0n;
  for (let start = 0; start < miners; start += SEED_CHUNK) {
    const pipeline = redis.pipeline();
    let chunk = 0n;
    for (let i = start; i < Math.min(miners, start + SEED_CHUNK); i++) {
      const amount = BigInt(i + 1) * 1_000n;
      chunk += amount;
      pipeline.hset(keys.balance(address(i)), 'credited', amount.toString(), 'balance', amount.toString());
      pipeline.zadd(keys.payable, amount.toString(), address(i));
    }
    pipeline.hincrby(keys.totals, 'credited', chunk.toString());
    pipeline.hincrby(keys.totals, 'balance', chunk.toString());
    pipeline.hincrby(keys.totals, 'rewards', chunk.toString());
    await pipeline.exec();
    total += chunk;
  }
  return total;
}

async function commandsProcessed(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? Number.NaN);
}

/** The first call, then REPEATS more (median, max), and the commands one call costs Redis. */
async function timed(redis: Redis, repeats: number, work: () => Promise<unknown>): Promise<Row> {
  let started = performance.now();
  await work();
  const firstMs = performance.now() - started;
  const before = await commandsProcessed(redis);
  await work();
  // The INFO that reads the count is counted too.
  const commands = (await commandsProcessed(redis)) - before - 1;
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    firstMs: round(firstMs),
    p50Ms: round(times[Math.floor(times.length / 2)] ?? Number.NaN),
    maxMs: round(times.at(-1) ?? Number.NaN),
    commands,
  };
}

function round(ms: number): number {
  return Number(ms.toFixed(2));
}

/** credit_block of CREDITS_PER_BLOCK credits to miners already owed, BLOCKS_CREDITED times. */
async function creditBlocks(redis: Redis, keyPrefix: string, miners: number): Promise<Row> {
  const logger = createLogger({ level: 'silent' });
  const ledger = new RedisShareLedger(
    { ...configSchema.parse({}).store, keyPrefix, maxBatchDelayMs: 0 },
    {
      redis,
      logger,
    },
  );
  const unlocker = new UnlockerStore({ keyPrefix }, { redis });
  const times: number[] = [];
  let commands = Number.NaN;
  for (let b = 0; b < BLOCKS_CREDITED; b++) {
    const hash = (0xb10c00 + b).toString(16).padStart(64, '0');
    const height = 900_000 + b;
    await ledger.writeBlockCandidate({
      height,
      hash,
      prevHash: (0xb10b00 + b).toString(16).padStart(64, '0'),
      networkDifficulty: 150_000_000n,
      share: {
        address: address(0),
        worker: 'rig0',
        difficulty: 1,
        height,
        timestampMs: 0,
        solo: false,
        stale: false,
      },
      submitResult: 'accepted',
      blobHex: '09',
      timestampMs: 0,
    });
    const credits = Array.from({ length: CREDITS_PER_BLOCK }, (_, i) => ({
      address: address((b * CREDITS_PER_BLOCK + i * 97) % miners),
      amountAtomic: 7n,
      reason: 'block-credit' as const,
    }));
    const before = await commandsProcessed(redis);
    const started = performance.now();
    await unlocker.creditBlock({
      hash,
      height,
      rewardAtomic: 7n * BigInt(CREDITS_PER_BLOCK),
      poolFeeAtomic: 0n,
      poolFeeKeptAtomic: 0n,
      finderBonusAtomic: 0n,
      scheme: 'pplns',
      depth: 60,
      credits,
    });
    times.push(performance.now() - started);
    if (b === 0) commands = (await commandsProcessed(redis)) - before - 1;
  }
  const sorted = [...times].sort((x, y) => x - y);
  return {
    firstMs: round(times[0] ?? Number.NaN),
    p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
    commands,
  };
}

async function main(): Promise<void> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const logger = createLogger({ level: 'warn' });
  const redisServer = await startPrivateRedis();
  const redis = await createRedisClient({ url: redisServer.url }, logger);
  const results: Record<string, Record<string, Row>> = {};
  try {
    say(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const miners of SIZES) {
      const keyPrefix = `bench-owed-${miners}`;
      const expected = await seed(redis, keyPrefix, miners);
      const balances = new RedisBalances({ keyPrefix }, { redis });
      const metrics = createPoolMetrics({
        solvency: () => readSolvencySnapshot(keyPrefix, { redis, wallet }),
      });
      // Seeded without the scripts: no sum is kept, so the first call sums the index and stores it.
      const rows: Record<string, Row> = {
        positiveBalanceTotal: await timed(redis, REPEATS, async () => {
          const total = await balances.positiveBalanceTotal();
          if (total !== expected) throw new Error(`positiveBalanceTotal ${total} != ${expected}`);
        }),
        'audit (fuego-pool report)': await timed(redis, 3, () => balances.auditPositiveBalance()),
        'solvency read (scrape)': await timed(redis, REPEATS, () =>
          readSolvencySnapshot(keyPrefix, { redis, wallet }),
        ),
        '/metrics render': await timed(redis, REPEATS, () => metrics.render()),
        [`listPayable ${PAYABLE_PAGE}`]: await timed(redis, 5, async () => {
          const page = await balances.listPayable(1n, PAYABLE_PAGE);
          if (page.length !== PAYABLE_PAGE) throw new Error(`listPayable gave ${page.length}`);
        }),
        [`credit_block ${CREDITS_PER_BLOCK} credits`]: await creditBlocks(redis, keyPrefix, miners),
      };
      const after = await balances.positiveBalanceTotal();
      const credited = 7n * BigInt(CREDITS_PER_BLOCK * BLOCKS_CREDITED);
      if (after !== expected + credited) throw new Error(`after credits ${after} != ${expected + credited}`);
      results[String(miners)] = rows;
      say('');
      say(`${miners} miners with a payable balance`);
      say(
        `${'read'.padEnd(28)} ${'first ms'.padStart(9)} ${'p50 ms'.padStart(9)} ${'max ms'.padStart(9)} ${'commands'.padStart(9)}`,
      );
      for (const [name, row] of Object.entries(rows)) {
        say(
          `${name.padEnd(28)} ${String(row.firstMs).padStart(9)} ${String(row.p50Ms).padStart(9)} ${String(row.maxMs).padStart(9)} ${String(row.commands).padStart(9)}`,
        );
      }
    }
    say('');
    say(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    say(JSON.stringify({ benchmark: 'owed-total', repeats: REPEATS, results }));
  } finally {
    redis.disconnect();
    await redisServer.stop();
  }
}

await main();
