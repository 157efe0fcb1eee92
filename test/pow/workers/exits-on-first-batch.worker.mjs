// Fake verifier worker for test/pow/verifier-pool.test.ts: the real (compiled) worker, except
// that the worker handed the pool's first batch (batchId 1) exits with it, as a crash would. Its
// replacement never sees batch 1, so it works normally.
import { parentPort } from 'node:worker_threads';

// Registered before the real worker's listener, so the batch is never hashed.
parentPort.on('message', (message) => {
  if (message.type === 'hash' && message.batchId === 1) process.exit(70);
});
await import('../../../dist/pow/verifier.worker.js');
