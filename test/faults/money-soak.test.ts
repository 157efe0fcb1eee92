import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createRedisClient } from '../../src/store/redis-client.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { walletClientFor } from '../leader/payouts/payout-test-kit.js';
import { daemonClientFor } from '../leader/unlocker/unlocker-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';
import { drain, expectSettled, expectStepInvariants } from './money-soak-checks.js';
import { daemonOutageTick } from './money-soak-fault-steps.js';
import { pickStep } from './money-soak-steps.js';
import { SoakPool, SoakRandom } from './money-soak-world.js';

/**
 * The money soak: a seeded PRNG interleaves the money path's events in orders nobody wrote by
 * hand (shares, the pool's blocks, the network's blocks, reorgs shallower and deeper than
 * confirmDepth, a pool block's branch brought back, unlock runs, payout passes, wallet faults,
 * transactions dropped from the mempool, wallet scan lag, the runner's clock moving on, the leader
 * crashing in a payout pass or an unlock run, fuegod unreachable, Redis restarted, Redis losing a
 * batch the wallet sent, walletd too, and the operator resolving the unknown payment) against a
 * real Redis and a fresh devnet per seed, with the pool's real ledger, unlocker and payout runner.
 * After every step the ledger and the chain are checked (money-soak-checks.ts); at the end the
 * seed is drained and settled. A failure names its seed and lists its steps;
 * FUEGO_SOAK_SEED=N replays one seed (FUEGO_SOAK_LOG=1 prints the steps of a passing one),
 * FUEGO_SOAK_SEEDS=FIRST-LAST runs a range.
 * Default: 3 seeds of 40 steps; FUEGO_SLOW=1: 60 seeds of 80 steps.
 */
const SLOW = process.env['FUEGO_SLOW'] === '1';
const ONE_SEED = process.env['FUEGO_SOAK_SEED'];
/** FUEGO_SOAK_SEEDS=FIRST-LAST runs that range instead (a longer hunt). */
const SEED_RANGE = /^(\d+)-(\d+)$/.exec(process.env['FUEGO_SOAK_SEEDS'] ?? '');
function seeds(): number[] {
  if (ONE_SEED !== undefined) return [Number(ONE_SEED)];
  const [first, last] = SEED_RANGE
    ? [Number(SEED_RANGE[1]), Number(SEED_RANGE[2])]
    : SLOW
      ? [1_000, 1_059]
      : [1, 3];
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
const SEEDS: readonly number[] = seeds();
const STEPS_PER_SEED = SLOW ? 80 : 40;

describe('money soak: random interleavings of the money path on the devnet', () => {
  let dir: string;
  let port: number;
  let server: PrivateRedis | undefined;
  let redis: Redis;
  /** A restartable Redis: the same port and data dir, the AOF fsynced on every write. */
  const redisServer = {
    async stop(): Promise<void> {
      await server?.stop();
      server = undefined;
    },
    async start(): Promise<void> {
      server = await startPrivateRedis({ appendOnly: true, dir, port });
      await untilConnected(redis);
    },
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fuego-pool-soak-redis-'));
    port = await freePort();
    server = await startPrivateRedis({ appendOnly: true, dir, port });
    redis = await createRedisClient({ url: server.url }, silentLogger);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(SEEDS)('seed %i: every step keeps the ledger and the chain in agreement', async (seed) => {
    await soakOneSeed(redis, redisServer, seed);
  });
});

/** Waits (generously: the machine may be loaded) until the client has reconnected after a restart. */
async function untilConnected(redis: Redis): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (redis.status !== 'ready') {
    if (Date.now() > deadline) throw new Error(`Redis client not reconnected: ${redis.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One seed on its own devnet; a failure is rethrown with the seed and the steps so far. */
async function soakOneSeed(
  redis: Redis,
  redisServer: { stop(): Promise<void>; start(): Promise<void> },
  seed: number,
): Promise<void> {
  const devnet = await startTestDevnet();
  const daemon = daemonClientFor(devnet, 5_000);
  const wallet = walletClientFor(devnet, 1_500);
  const shared = {
    redis,
    devnet,
    daemon,
    wallet,
    stopRedis: redisServer.stop,
    startRedis: redisServer.start,
  };
  const pool = new SoakPool(shared, uniquePrefix(`soak${seed}`), seed);
  const random = new SoakRandom(seed);
  const lines: string[] = [];
  try {
    for (let step = 0; step < STEPS_PER_SEED; step++) {
      const kind = pickStep(random);
      lines.push(`${step}: ${await kind.run(pool, random)}`);
      await expectStepInvariants(pool);
      await daemonOutageTick(pool);
    }
    lines.push(...(await drain(pool)));
    await expectSettled(pool);
    if (process.env['FUEGO_SOAK_LOG'] === '1') console.log(`seed ${seed}:\n${lines.join('\n')}`);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `money soak seed ${seed} failed (replay: FUEGO_SOAK_SEED=${seed}): ${detail}\nsteps:\n${lines.join('\n')}`,
      { cause: error },
    );
  } finally {
    daemon.close();
    wallet.close();
    await devnet.stop();
  }
}
