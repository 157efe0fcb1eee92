import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { StoreError } from '../../../src/store/store-error.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { makeCandidate, makeShare, silentLogger, uniquePrefix } from '../store-fixtures.js';
import { startTcpProxy } from '../tcp-proxy.js';

interface Outcome {
  readonly height: number;
  readonly ok: boolean;
  readonly error?: unknown;
}

/**
 * Submits shares (unique heights) in small bursts until `stop()` says so, collecting how each
 * promise settled. The bursts keep batches in flight at the moment the connection dies.
 */
function submitContinuously(ledger: RedisShareLedger) {
  const settled: Promise<Outcome>[] = [];
  let height = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      for (let i = 0; i < 20; i += 1) {
        const h = height;
        height += 1;
        settled.push(
          ledger.recordShare(makeShare({ height: h })).then(
            () => ({ height: h, ok: true }),
            (error: unknown) => ({ height: h, ok: false, error }),
          ),
        );
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const done = loop();
  return {
    async stop(): Promise<Outcome[]> {
      running = false;
      await done;
      return await Promise.all(settled);
    },
  };
}

function expectUnavailable(outcomes: readonly Outcome[]): void {
  for (const outcome of outcomes.filter((o) => !o.ok)) {
    expect(outcome.error).toBeInstanceOf(StoreError);
    expect((outcome.error as StoreError).code).toBe('STORE_UNAVAILABLE');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisShareLedger when Redis goes away', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('connection cut mid-stream: every resolved share is in Redis, the rest reject STORE_UNAVAILABLE', async () => {
    const server = await startTestRedis();
    cleanups.push(() => server.stop());
    const proxy = await startTcpProxy(server.port);
    const redis = await createRedisClient({ url: `redis://127.0.0.1:${proxy.port}` }, silentLogger);
    cleanups.push(() => redis.disconnect());
    const direct = new Redis(server.url, { lazyConnect: true });
    await direct.connect();
    cleanups.push(() => direct.disconnect());

    const keyPrefix = uniquePrefix('cut');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix, maxBatchSize: 16 },
      { redis, logger: silentLogger },
    );
    const producer = submitContinuously(ledger);
    await sleep(150);
    await proxy.cut();
    await sleep(100);
    const outcomes = await producer.stop();

    const resolved = outcomes.filter((o) => o.ok);
    expect(resolved.length).toBeGreaterThan(0);
    expect(outcomes.length - resolved.length).toBeGreaterThan(0);
    expectUnavailable(outcomes);

    // "OK" was only ever said for a share Redis holds.
    const entries = await direct.xrange(createShareKeys(keyPrefix).shares, '-', '+');
    const stored = new Set(entries.map(([, fields]) => Number(fields[7])));
    const missing = resolved.filter((o) => !stored.has(o.height));
    expect(missing).toEqual([]);
    // Nothing is applied twice (no resend of in-flight batches after the reconnect).
    expect(stored.size).toBe(entries.length);
  });

  it('server stopped mid-stream: pending shares reject STORE_UNAVAILABLE, none stays pending', async () => {
    const server: TestRedis = await startTestRedis();
    const redis = await createRedisClient({ url: server.url }, silentLogger);
    cleanups.push(() => redis.disconnect());
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix: uniquePrefix('stop'), maxBatchSize: 16, candidateRetryMs: 300 },
      { redis, logger: silentLogger },
    );
    const producer = submitContinuously(ledger);
    await sleep(150);
    await server.stop();
    await sleep(50);
    const outcomes = await producer.stop();

    expect(outcomes.some((o) => o.ok)).toBe(true);
    expect(outcomes.some((o) => !o.ok)).toBe(true);
    expectUnavailable(outcomes);
    await expect(ledger.recordShare(makeShare())).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    // A block candidate is retried for candidateRetryMs, then reported, never dropped silently.
    const started = Date.now();
    await expect(ledger.recordBlockCandidate(makeCandidate())).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    await ledger.close();
    expect(ledger.metrics()).toMatchObject({ queuedShares: 0, inFlightShares: 0 });
  });
});
