import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoStack } from '../../src/app/demo-stack.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';
import { SyntheticMiner, startFaultStack, waitFor } from './fault-kit.js';

/**
 * Redis restarted (AOF on, same port and dir) while miners submit real shares: every share
 * answered OK is in the share stream afterwards (OK <= stored, per worker), nothing is stored more
 * often than it was submitted, and the pool accepts shares again without being restarted.
 */
/** How long a wait for what must happen may take; only a failing run waits it out. */
const WAIT_MS = 60_000;

describe('fault: Redis restart under load', () => {
  let dir: string;
  let port: number;
  let redis: PrivateRedis;
  let stack: DemoStack;
  const miners: SyntheticMiner[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fuego-pool-fault-redis-'));
    port = await freePort();
    redis = await startPrivateRedis({ appendOnly: true, dir, port });
    // Network difficulty far above what the synthetic miners reach: no blocks, only shares.
    stack = await startFaultStack({
      networkDifficulty: 1_000_000_000,
      poolOverrides: { redis: { url: redis.url } },
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(miners.map((m) => m.stop()));
    await stack?.stop();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'loses no OK share, stores none twice and recovers by itself',
    async () => {
      const started = Date.now();
      for (let i = 0; i < 3; i++) {
        const miner = new SyntheticMiner(stack.stratumPort, stack.minerAddress, `rig${i}`, 5);
        miners.push(miner);
        miner.start();
      }
      await waitFor(
        () => (miners.every((m) => m.counts.ok >= 30) ? true : undefined),
        WAIT_MS,
        'shares before',
      );

      const okBefore = miners.map((m) => m.counts.ok);
      const errorsBefore = miners.map((m) => m.errorCount());
      const downAt = Date.now();
      await redis.stop();
      // Down for at least 1.5 s, and until the pool has refused a share of every miner: it has seen
      // Redis gone (a loaded machine can leave the miners without a turn for longer than that).
      await waitFor(
        () =>
          Date.now() - downAt >= 1_500 && miners.every((m, i) => m.errorCount() > errorsBefore[i]!)
            ? true
            : undefined,
        WAIT_MS,
        'a share of every miner refused while Redis is down',
      );
      const refusedWhileDown = miners.reduce((sum, m) => sum + m.errorCount(), 0);
      redis = await startPrivateRedis({ appendOnly: true, dir, port });
      const restartedAt = Date.now();

      // The ioredis client reconnects by itself; miners get OK again without a pool restart.
      const okAfterRestart = miners.map((m) => m.counts.ok);
      await waitFor(
        () => (miners.every((m, i) => m.counts.ok >= okAfterRestart[i]! + 30) ? true : undefined),
        WAIT_MS,
        'shares accepted after the restart',
      );
      const recoveryMs =
        Math.min(...miners.flatMap((m) => m.okTimesMs.filter((t) => t > restartedAt))) - restartedAt;
      await Promise.all(miners.map((m) => m.stop()));
      // The last shares land: the miners' connections closed at the pool, nothing left to hash or
      // to write (the stream and the per-worker counters are read below, and must agree).
      const role = stack.pool.stratumRole!;
      await waitFor(
        () => {
          const verifier = role.verifier.metrics();
          const ledger = role.ledger.metrics();
          return role.server.metrics().connections.current === 0 &&
            verifier.queueDepth + verifier.inFlight === 0 &&
            ledger.queuedShares + ledger.inFlightShares === 0
            ? true
            : undefined;
        },
        WAIT_MS,
        'every share sent hashed and written',
      );

      const keys = createShareKeys('fuego');
      const storedByWorker = new Map<string, number>();
      for (const [, fields] of await stack.pool.redis.xrange(keys.shares, '-', '+')) {
        const worker = fields[fields.indexOf('w') + 1]!;
        storedByWorker.set(worker, (storedByWorker.get(worker) ?? 0) + 1);
      }
      const report = miners.map((m) => ({
        worker: m.worker,
        submitted: m.counts.submitted,
        ok: m.counts.ok,
        stored: storedByWorker.get(m.worker) ?? 0,
        errors: Object.fromEntries(m.counts.errors),
      }));
      console.info(
        `redis restart: ${JSON.stringify(report)}; ${refusedWhileDown} refused while down; first OK ${recoveryMs} ms after restart; ${Date.now() - started} ms`,
      );
      for (const row of report) {
        expect(row.stored, `${row.worker}: every OK share is stored`).toBeGreaterThanOrEqual(row.ok);
        expect(row.stored, `${row.worker}: nothing stored twice`).toBeLessThanOrEqual(row.submitted);
      }
      expect(okBefore.every((n) => n >= 30)).toBe(true);
      // The miner's per-worker counters (same script) agree with the stream.
      for (const row of report) {
        const counted = await stack.pool.redis.hget(
          keys.worker(stack.minerAddress, row.worker),
          'sharesValid',
        );
        expect(Number(counted)).toBe(row.stored);
      }
    },
    4 * WAIT_MS,
  );
});
