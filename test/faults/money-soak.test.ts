import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { walletClientFor } from '../leader/payouts/payout-test-kit.js';
import { daemonClientFor } from '../leader/unlocker/unlocker-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';
import { drain, expectSettled, expectStepInvariants } from './money-soak-checks.js';
import { pickStep } from './money-soak-steps.js';
import { SoakPool, SoakRandom } from './money-soak-world.js';

/**
 * The money soak: a seeded PRNG interleaves the money path's events in orders nobody wrote by
 * hand (shares, the pool's blocks, the network's blocks, reorgs shallower and deeper than
 * confirmDepth, a pool block's branch brought back, unlock runs, payout passes, wallet faults,
 * transactions dropped from the mempool, wallet scan lag, the runner's clock moving on) against a
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
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startTestRedis({ appendOnly: true });
    redis = await createRedisClient({ url: server.url }, silentLogger);
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it.each(SEEDS)('seed %i: every step keeps the ledger and the chain in agreement', async (seed) => {
    await soakOneSeed(redis, seed);
  });
});

/** One seed on its own devnet; a failure is rethrown with the seed and the steps so far. */
async function soakOneSeed(redis: Redis, seed: number): Promise<void> {
  const devnet = await startTestDevnet();
  const daemon = daemonClientFor(devnet, 5_000);
  const wallet = walletClientFor(devnet, 1_500);
  const pool = new SoakPool({ redis, devnet, daemon, wallet }, uniquePrefix(`soak${seed}`), seed);
  const random = new SoakRandom(seed);
  const lines: string[] = [];
  try {
    for (let step = 0; step < STEPS_PER_SEED; step++) {
      const kind = pickStep(random);
      lines.push(`${step}: ${await kind.run(pool, random)}`);
      await expectStepInvariants(pool);
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
