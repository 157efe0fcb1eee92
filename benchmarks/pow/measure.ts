import { hexToBytes } from '../../src/fuego/hex.js';
import type { Logger } from '../../src/log/logger.js';
import type { PowImplementationChoice } from '../../src/pow/load-hasher.js';
import type { PowHasher } from '../../src/pow/types.js';
import { ShareVerifierPool } from '../../src/pow/verifier-pool.js';

/** A 76-byte Fuego hashing blob (XMRig transcript blob A); the nonce lives at bytes 39..42. */
const BASE_BLOB = hexToBytes(
  '0100c08cfdb9067f1b7ebaf58a8d7ceedf6602aa4300a6b2824ff86b36be2c3aa709631fa1cde000000000e6acb9ae1092a816102241aca1255c739dce9a568d40ca96b7d3e81dd74bc50d01',
);
const NONCE_OFFSET = 39;

/** The hashing blob with `nonce` written little-endian at bytes 39..42, as a miner would. */
export function blobWithNonce(nonce: number): Uint8Array {
  const blob = BASE_BLOB.slice();
  new DataView(blob.buffer).setUint32(NONCE_OFFSET, nonce >>> 0, true);
  return blob;
}

export interface RateResult {
  readonly hashes: number;
  readonly elapsedMs: number;
  readonly hps: number;
}

/**
 * Single-thread rate of `hasher` on this thread: hashes distinct inputs for `durationMs`
 * (after a short warm-up), checking the clock every hash (a hash is >= 0.1 ms, the clock ~50 ns).
 */
export function measureSingleThread(hasher: PowHasher, durationMs: number): RateResult {
  for (let i = 0; i < 3; i++) hasher.hash(blobWithNonce(0xffff_0000 + i));
  let hashes = 0;
  const started = performance.now();
  let now = started;
  while (now - started < durationMs) {
    hasher.hash(blobWithNonce(hashes));
    hashes++;
    now = performance.now();
  }
  const elapsedMs = now - started;
  return { hashes, elapsedMs, hps: (hashes * 1000) / elapsedMs };
}

/**
 * Single-thread rate of `hasher`'s paired path (two inputs per call, main loops interleaved), the
 * way a verifier worker hashes once shares queue up. Counts hashes, not calls.
 */
export function measureSingleThreadPairs(hasher: PowHasher, durationMs: number): RateResult | null {
  const { hashPair } = hasher;
  if (!hashPair) return null;
  for (let i = 0; i < 3; i++)
    hashPair(blobWithNonce(0xffff_0000 + 2 * i), blobWithNonce(0xffff_0001 + 2 * i));
  let hashes = 0;
  const started = performance.now();
  let now = started;
  while (now - started < durationMs) {
    hashPair(blobWithNonce(hashes), blobWithNonce(hashes + 1));
    hashes += 2;
    now = performance.now();
  }
  const elapsedMs = now - started;
  return { hashes, elapsedMs, hps: (hashes * 1000) / elapsedMs };
}

/**
 * Throughput of a ShareVerifierPool with `workers` threads: a producer keeps the queue topped up
 * (submitting while canAcceptWork(), as the stratum layer would, and again as each result comes
 * back, so it needs no timer of its own) for `durationMs`; we count the hashes that completed in
 * that window.
 */
export async function measurePool(
  workers: number,
  implementation: PowImplementationChoice,
  durationMs: number,
  logger: Logger,
): Promise<RateResult & { batchesSent: number; hashTimeMsAvg: number }> {
  const pool = new ShareVerifierPool({ workers, implementation, maxQueuedJobs: 128 }, { logger });
  await pool.start();
  let completed = 0;
  let nonce = 0;
  let stop = false;
  const inFlight = new Set<Promise<unknown>>();
  const topUp = (): void => {
    while (!stop && pool.canAcceptWork()) {
      const job = pool.verify(blobWithNonce(nonce++)).then(() => {
        inFlight.delete(job);
        if (stop) return;
        completed++;
        topUp();
      });
      inFlight.add(job);
    }
  };
  const started = performance.now();
  try {
    topUp();
    await new Promise((resolve) => setTimeout(resolve, durationMs));
    stop = true;
    const elapsedMs = performance.now() - started;
    const { batchesSent, hashTimeMsAvg } = pool.metrics();
    return { hashes: completed, elapsedMs, hps: (completed * 1000) / elapsedMs, batchesSent, hashTimeMsAvg };
  } finally {
    stop = true;
    // Queued jobs reject with POOL_CLOSED on close; that is expected here.
    for (const job of inFlight) job.catch(() => {});
    await pool.close();
    await Promise.allSettled(inFlight);
  }
}
