import { afterEach, describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { PowSelfTestError } from '../../src/pow/self-test.js';
import {
  ShareVerifierPool,
  type ShareVerifierPoolOptions,
  VerifierPoolError,
} from '../../src/pow/verifier-pool.js';
import { readJsonFixture } from '../helpers/fixtures.js';
import { captureLogs } from '../helpers/log-capture.js';

// Workers run the compiled dist/pow/verifier.worker.js: `npm run build` must have run (npm test does).
// Native-backed cases need the addon (built by `npm ci`) unless FUEGO_POW_SKIP_NATIVE=1 opted out.
const skipNative = process.env['FUEGO_POW_SKIP_NATIVE'] === '1';
const itNative = it.skipIf(skipNative);

interface Vector {
  input: Uint8Array;
  hashHex: string;
}

/** Every cn/upx2 vector of the fixtures: 240 XMRig shares plus format.json's 13, all distinct. */
function loadVectors(): Vector[] {
  const xmrig = readJsonFixture<{ vectors: { blob_sent: string; nonce: string; result: string }[] }>(
    'vectors/upx2-xmrig.json',
  ).vectors.map((v) => ({
    // Hashing input: the blob with bytes 39..42 (hex chars 78..85) replaced by the nonce.
    input: hexToBytes(v.blob_sent.slice(0, 78) + v.nonce + v.blob_sent.slice(86)),
    hashHex: v.result,
  }));
  const format = readJsonFixture<{
    cn_slow_hash_light1_variant2: { vectors: { input: string; output: string }[] };
  }>('vectors/format.json').cn_slow_hash_light1_variant2.vectors.map((v) => ({
    input: hexToBytes(v.input),
    hashHex: v.output,
  }));
  return [...xmrig, ...format];
}

const vectors = loadVectors();

const pools: ShareVerifierPool[] = [];
async function startPool(opts: Partial<ShareVerifierPoolOptions> = {}): Promise<ShareVerifierPool> {
  const pool = new ShareVerifierPool(
    { workers: 2, implementation: 'native', maxQueuedJobs: 64, ...opts },
    { logger: captureLogs('info').logger },
  );
  pools.push(pool);
  await pool.start();
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

type Outcome = { ok: true; hashHex: string } | { ok: false; code: string };
function settle(promise: Promise<Uint8Array>): Promise<Outcome> {
  return promise.then(
    (hash) => ({ ok: true, hashHex: bytesToHex(hash) }),
    (error: unknown) => ({ ok: false, code: (error as VerifierPoolError).code }),
  );
}

describe('ShareVerifierPool hashes', () => {
  itNative(
    'all fixture vectors on native workers, in batches, each result matched to its own input',
    async () => {
      expect(vectors.length).toBeGreaterThan(250);
      const pool = await startPool({ workers: 2, implementation: 'native', maxQueuedJobs: 1000 });
      const hashes = await Promise.all(vectors.map((v) => pool.verify(v.input)));
      expect(hashes.map(bytesToHex)).toEqual(vectors.map((v) => v.hashHex));
      for (const hash of hashes) expect(hash).toHaveLength(32);
      const metrics = pool.metrics();
      expect(metrics).toMatchObject({ hashesTotal: vectors.length, queueDepth: 0, inFlight: 0, workers: 2 });
      expect(metrics.implementation).toBe('native');
      // Jobs that piled up went out several per message.
      expect(metrics.batchesSent).toBeLessThan(vectors.length / 4);
      expect(metrics.hashTimeMsAvg).toBeGreaterThan(0);
      expect(metrics.hashTimeMsHistogram.reduce((sum, b) => sum + b.count, 0)).toBe(vectors.length);
    },
  );

  itNative('the portable native build and the TypeScript implementation (a few hashes)', async () => {
    const portable = await startPool({ workers: 1, implementation: 'native-portable' });
    const sample = vectors.filter((_, i) => i % 40 === 0);
    expect((await Promise.all(sample.map((v) => portable.verify(v.input)))).map(bytesToHex)).toEqual(
      sample.map((v) => v.hashHex),
    );
    expect(portable.metrics().implementation).toBe('native-portable');

    const ts = await startPool({ workers: 1, implementation: 'typescript' });
    const few = sample.slice(0, 3);
    expect((await Promise.all(few.map((v) => ts.verify(v.input)))).map(bytesToHex)).toEqual(
      few.map((v) => v.hashHex),
    );
    expect(ts.metrics().implementation).toBe('typescript');
  });

  itNative('copies the input, so the caller may reuse its buffer at once', async () => {
    const pool = await startPool();
    const buffer = vectors[0]!.input.slice();
    const pending = pool.verify(buffer);
    buffer.set(vectors[1]!.input);
    const second = pool.verify(buffer);
    expect(bytesToHex(await pending)).toBe(vectors[0]!.hashHex);
    expect(bytesToHex(await second)).toBe(vectors[1]!.hashHex);
  });
});

describe('ShareVerifierPool back-pressure', () => {
  itNative(
    'canAcceptWork() turns false at maxQueuedJobs; past 2x it rejects QUEUE_FULL; nothing lost or mixed up',
    async () => {
      const maxQueuedJobs = 20;
      const pool = await startPool({ workers: 2, maxQueuedJobs, maxBatchSize: 4 });
      const submitted: { vector: Vector; outcome: Promise<Outcome> }[] = [];
      let sawBackPressure = false;
      // A flood that ignores canAcceptWork(), all in one tick.
      for (const vector of vectors.slice(0, 120)) {
        if (!pool.canAcceptWork()) sawBackPressure = true;
        submitted.push({ vector, outcome: settle(pool.verify(vector.input)) });
      }
      expect(sawBackPressure).toBe(true);
      expect(pool.metrics().queueDepth).toBe(2 * maxQueuedJobs);
      const outcomes = await Promise.all(submitted.map((s) => s.outcome));
      const accepted = outcomes.filter((o) => o.ok).length;
      const rejected = outcomes.filter((o) => !o.ok);
      expect(rejected.every((o) => o.code === 'QUEUE_FULL')).toBe(true);
      expect(accepted + rejected.length).toBe(120);
      expect(accepted).toBeGreaterThanOrEqual(2 * maxQueuedJobs);
      submitted.forEach((s, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) expect(outcome.hashHex).toBe(s.vector.hashHex);
      });
      // Each accepted job was hashed exactly once.
      expect(pool.metrics().hashesTotal).toBe(accepted);
      expect(pool.canAcceptWork()).toBe(true);
    },
  );

  itNative('a producer that waits while canAcceptWork() is false never sees QUEUE_FULL', async () => {
    const pool = await startPool({ workers: 2, maxQueuedJobs: 8, maxBatchSize: 4 });
    const pending: Promise<Uint8Array>[] = [];
    let waits = 0;
    const work = [...vectors, ...vectors];
    for (const vector of work) {
      while (!pool.canAcceptWork()) {
        waits++;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      pending.push(pool.verify(vector.input));
      expect(pool.metrics().queueDepth).toBeLessThanOrEqual(8);
    }
    const hashes = (await Promise.all(pending)).map(bytesToHex);
    expect(hashes).toEqual(work.map((v) => v.hashHex));
    expect(waits).toBeGreaterThan(0);
  });
});

describe('ShareVerifierPool is fair between peers (submit storms)', () => {
  itNative(
    "one peer's backlog delays another peer's share by a few jobs, not by the whole backlog",
    async () => {
      const pool = await startPool({ workers: 1, maxQueuedJobs: 1000, maxBatchSize: 8 });
      const order: string[] = [];
      const track = (name: string, promise: Promise<Uint8Array>) => promise.then(() => order.push(name));
      const flood = vectors.slice(0, 200).map((v) => track('attacker', pool.verify(v.input, 'attacker')));
      const honest = track('honest', pool.verify(vectors[200]!.input, 'honest'));
      await Promise.all([...flood, honest]);
      // Jobs already handed to the worker (two batches) go first; then the peers take turns.
      expect(order.indexOf('honest')).toBeLessThanOrEqual(2 * 8 + 1);
    },
  );

  itNative('a peer holding its share is held back; another peer still gets in', async () => {
    const pool = await startPool({ workers: 1, maxQueuedJobs: 40, maxBatchSize: 4 });
    const flood = vectors.slice(0, 60).map((v) => settle(pool.verify(v.input, 'attacker')));
    expect(pool.canAcceptWork('attacker')).toBe(false);
    expect(pool.canAcceptWork('honest')).toBe(true);
    await Promise.all(flood);
    expect(pool.canAcceptWork('attacker')).toBe(true);
  });

  itNative('a peer alone is held back at maxQueuedJobsPerOwner, well before maxQueuedJobs', async () => {
    const pool = await startPool({
      workers: 1,
      maxQueuedJobs: 1000,
      maxQueuedJobsPerOwner: 8,
      maxBatchSize: 2,
    });
    const flood = vectors.slice(0, 12).map((v) => settle(pool.verify(v.input, 'attacker')));
    // The worker took a batch; 8 or more still wait, so the storm's sockets would pause here.
    expect(pool.metrics().queueDepth).toBeGreaterThanOrEqual(8);
    expect(pool.canAcceptWork('attacker')).toBe(false);
    expect(pool.canAcceptWork('honest')).toBe(true);
    // Held back, not refused: every share already read is hashed.
    expect((await Promise.all(flood)).every((o) => o.ok)).toBe(true);
    expect(pool.canAcceptWork('attacker')).toBe(true);
  });

  itNative(
    "at the hard limit a newcomer's share takes the place of the largest backlog's newest job",
    async () => {
      const pool = await startPool({ workers: 1, maxQueuedJobs: 10, maxBatchSize: 2 });
      const flood = vectors.slice(0, 40).map((v) => settle(pool.verify(v.input, 'attacker')));
      const honest = settle(pool.verify(vectors[40]!.input, 'honest'));
      expect(await honest).toEqual({ ok: true, hashHex: vectors[40]!.hashHex });
      const outcomes = await Promise.all(flood);
      // The worker took a job or two, 20 waited (the hard limit), the rest were refused; the newest
      // waiting one made room for the newcomer. Whatever was refused is the newest of the flood.
      const served = outcomes.findIndex((o) => !o.ok);
      expect(served).toBeGreaterThanOrEqual(20);
      expect(outcomes.slice(served).every((o) => !o.ok && o.code === 'QUEUE_FULL')).toBe(true);
      expect(pool.metrics().hashesTotal).toBe(served + 1);
    },
  );

  itNative("cancel(peer) drops that peer's waiting jobs unhashed; others are not touched", async () => {
    const pool = await startPool({ workers: 1, maxQueuedJobs: 1000, maxBatchSize: 4 });
    const flood = vectors.slice(0, 100).map((v) => settle(pool.verify(v.input, 'attacker')));
    const honest = vectors.slice(100, 110).map((v) => settle(pool.verify(v.input, 'honest')));
    const cancelled = pool.cancel('attacker');
    expect(cancelled).toBeGreaterThan(80);
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => !o.ok && o.code === 'CANCELLED')).toHaveLength(cancelled);
    expect((await Promise.all(honest)).every((o) => o.ok)).toBe(true);
    expect(pool.metrics().hashesTotal).toBe(110 - cancelled);
  });
});

describe('ShareVerifierPool failures and shutdown', () => {
  itNative(
    'close(): refuses new work, rejects queued jobs with POOL_CLOSED, lets in-flight ones finish',
    async () => {
      const pool = await startPool({ workers: 2, maxQueuedJobs: 200, maxBatchSize: 8 });
      const outcomes = vectors.slice(0, 100).map((v) => settle(pool.verify(v.input)));
      const before = pool.metrics();
      expect(before.inFlight).toBeGreaterThan(0);
      expect(before.queueDepth).toBeGreaterThan(0);
      const closing = pool.close();
      expect(pool.close()).toBe(closing);
      expect(pool.canAcceptWork()).toBe(false);
      expect(await settle(pool.verify(vectors[0]!.input))).toEqual({ ok: false, code: 'POOL_CLOSED' });
      await closing;
      const settled = await Promise.all(outcomes);
      const finished = settled.filter((o) => o.ok);
      expect(finished).toHaveLength(before.inFlight);
      expect(settled.filter((o) => !o.ok && o.code === 'POOL_CLOSED')).toHaveLength(before.queueDepth);
      settled.forEach((o, i) => {
        if (o.ok) expect(o.hashHex).toBe(vectors[i]!.hashHex);
      });
      expect(pool.metrics()).toMatchObject({ workers: 0, inFlight: 0, queueDepth: 0 });
    },
  );

  itNative(
    'a worker that dies mid-flight: its jobs are retried elsewhere, it is replaced, nothing is lost',
    async () => {
      const pool = await startPool({
        workers: 2,
        maxQueuedJobs: 1000,
        maxBatchSize: 8,
        workerUrl: new URL('./workers/exits-on-first-batch.worker.mjs', import.meta.url),
      });
      const pending = vectors.map((v) => pool.verify(v.input));
      expect(pool.metrics().inFlight).toBeGreaterThan(0);
      const hashes = (await Promise.all(pending)).map(bytesToHex);
      expect(hashes).toEqual(vectors.map((v) => v.hashHex));
      const metrics = pool.metrics();
      expect(metrics.workerRestarts).toBe(1);
      expect(metrics.jobsRetried).toBeGreaterThan(0);
      // The replacement passes its self-test and takes work again.
      await expect.poll(() => pool.metrics().workers, { timeout: 10_000 }).toBe(2);
      const again = await Promise.all(vectors.slice(0, 20).map((v) => pool.verify(v.input)));
      expect(again.map(bytesToHex)).toEqual(vectors.slice(0, 20).map((v) => v.hashHex));
    },
  );

  it('start() rejects with PowSelfTestError when a worker fails its self-test', async () => {
    const pool = new ShareVerifierPool(
      {
        workers: 2,
        implementation: 'native',
        maxQueuedJobs: 8,
        workerUrl: new URL('./workers/bad-hasher.worker.mjs', import.meta.url),
      },
      { logger: captureLogs('info').logger },
    );
    const error = await pool.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PowSelfTestError);
    expect((error as PowSelfTestError).code).toBe('POW_SELF_TEST_FAILED');
    expect((error as PowSelfTestError).data).toMatchObject({
      implementation: 'native',
      actual: '00'.repeat(32),
    });
    expect(pool.metrics().workers).toBe(0);
    expect(await settle(pool.verify(vectors[0]!.input))).toEqual({ ok: false, code: 'POOL_CLOSED' });
  });

  it("forwards workers' warnings to the pool logger once, not once per worker", async () => {
    const { logger, records } = captureLogs('info');
    const pool = new ShareVerifierPool(
      {
        workers: 2,
        implementation: 'auto',
        maxQueuedJobs: 8,
        workerUrl: new URL('./workers/warns-then-ready.worker.mjs', import.meta.url),
      },
      { logger },
    );
    pools.push(pool);
    await pool.start();
    const warnings = records.filter((line) => line['level'] === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: 'fallback warning', code: 'NATIVE_POW_UNAVAILABLE' });
    expect(pool.metrics()).toMatchObject({ workers: 2, implementation: 'typescript' });
  });

  it('start() rejects when a worker crashes while loading', async () => {
    const pool = new ShareVerifierPool(
      {
        workers: 1,
        implementation: 'native',
        maxQueuedJobs: 8,
        workerUrl: new URL('./workers/crash-on-start.worker.mjs', import.meta.url),
      },
      { logger: captureLogs('info').logger },
    );
    await expect(pool.start()).rejects.toThrow('worker crashed while loading');
  });

  it('verify() before start() rejects with POOL_NOT_STARTED', async () => {
    const pool = new ShareVerifierPool(
      { workers: 1, implementation: 'native', maxQueuedJobs: 8 },
      { logger: captureLogs('info').logger },
    );
    const error = await pool.verify(vectors[0]!.input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerifierPoolError);
    expect((error as VerifierPoolError).code).toBe('POOL_NOT_STARTED');
  });
});
