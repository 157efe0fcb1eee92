/**
 * Entry of one share-verifier worker thread (started by ShareVerifierPool from the compiled
 * dist/pow/verifier.worker.js). It loads the hasher, which runs the self-test, reports `ready`
 * or `init-failed`, then hashes batches until told to close. The pool's event loop never hashes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type HasherLoadLogger, loadHasher } from './load-hasher.js';
import type { PowHasher } from './types.js';
import {
  HASH_BYTES,
  type HashBatchMessage,
  type HashResultsMessage,
  type MainToWorkerMessage,
  serializeError,
  type VerifierWorkerData,
  type WorkerToMainMessage,
} from './verifier-messages.js';

/**
 * Hashes a batch, two inputs at a time when the hasher has a paired path (each of the pair is
 * timed at half the pair's time). A pair that throws is retried one by one, so a failure is
 * reported against the input that caused it.
 */
function hashBatch(hasher: PowHasher, batch: HashBatchMessage): HashResultsMessage {
  const count = batch.jobIds.length;
  const inputs = new Uint8Array(batch.inputs);
  const hashes = new Uint8Array(count * HASH_BYTES);
  const hashTimeMs: number[] = [];
  const failures: { jobId: number; error: ReturnType<typeof serializeError> }[] = [];
  const offsets: number[] = [];
  let end = 0;
  for (let i = 0; i < count; i++) {
    offsets.push(end);
    end += batch.inputLengths[i] ?? 0;
  }
  const inputAt = (i: number): Uint8Array =>
    inputs.subarray(offsets[i], offsets[i]! + (batch.inputLengths[i] ?? 0));

  const hashOne = (i: number): void => {
    const started = performance.now();
    try {
      const hash = hasher.hash(inputAt(i));
      if (hash.length !== HASH_BYTES) throw new Error(`hasher returned ${hash.length} bytes`);
      hashes.set(hash, i * HASH_BYTES);
    } catch (error) {
      failures.push({ jobId: batch.jobIds[i] ?? -1, error: serializeError(error) });
    }
    hashTimeMs.push(performance.now() - started);
  };

  let i = 0;
  if (hasher.hashPair) {
    for (; i + 1 < count; i += 2) {
      const started = performance.now();
      let pair: Uint8Array;
      try {
        pair = hasher.hashPair(inputAt(i), inputAt(i + 1));
        if (pair.length !== 2 * HASH_BYTES)
          throw new Error(`hasher returned ${pair.length} bytes for a pair`);
      } catch {
        hashOne(i);
        hashOne(i + 1);
        continue;
      }
      hashes.set(pair, i * HASH_BYTES);
      const half = (performance.now() - started) / 2;
      hashTimeMs.push(half, half);
    }
  }
  for (; i < count; i++) hashOne(i);
  return {
    type: 'results',
    batchId: batch.batchId,
    jobIds: batch.jobIds,
    hashes: hashes.buffer,
    hashTimeMs,
    failures,
  };
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('verifier.worker.js must be started as a worker thread');
  const post = (message: WorkerToMainMessage, transfer: ArrayBuffer[] = []): void =>
    port.postMessage(message, transfer);
  const data = workerData as VerifierWorkerData;
  // Warnings (the TypeScript fallback) go to the pool's logger, which dedupes them across workers.
  const logger: HasherLoadLogger = { warn: (obj, msg) => post({ type: 'log', level: 'warn', obj, msg }) };

  let hasher: PowHasher;
  try {
    hasher = loadHasher(data.implementation, logger);
  } catch (error) {
    post({ type: 'init-failed', error: serializeError(error) });
    port.close();
    return;
  }

  port.on('message', (message: MainToWorkerMessage) => {
    switch (message.type) {
      case 'hash': {
        const results = hashBatch(hasher, message);
        post(results, [results.hashes]);
        break;
      }
      case 'close':
        // Closing the port empties the event loop, so the thread exits with code 0.
        port.close();
        break;
    }
  });
  post({ type: 'ready', implementation: hasher.implementation });
}

main();
