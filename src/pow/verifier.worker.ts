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

function hashBatch(hasher: PowHasher, batch: HashBatchMessage): HashResultsMessage {
  const count = batch.jobIds.length;
  const inputs = new Uint8Array(batch.inputs);
  const hashes = new Uint8Array(count * HASH_BYTES);
  const hashTimeMs: number[] = [];
  const failures: { jobId: number; error: ReturnType<typeof serializeError> }[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const length = batch.inputLengths[i] ?? 0;
    const input = inputs.subarray(offset, offset + length);
    offset += length;
    const started = performance.now();
    try {
      const hash = hasher.hash(input);
      if (hash.length !== HASH_BYTES) throw new Error(`hasher returned ${hash.length} bytes`);
      hashes.set(hash, i * HASH_BYTES);
    } catch (error) {
      failures.push({ jobId: batch.jobIds[i] ?? -1, error: serializeError(error) });
    }
    hashTimeMs.push(performance.now() - started);
  }
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
