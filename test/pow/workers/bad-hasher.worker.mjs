// Fake verifier worker for test/pow/verifier-pool.test.ts: runs the real (compiled) self-test on a
// hasher that returns zeros and reports the failure the way verifier.worker.js does.
import { parentPort } from 'node:worker_threads';
import { runSelfTest } from '../../../dist/pow/self-test.js';
import { serializeError } from '../../../dist/pow/verifier-messages.js';

try {
  runSelfTest({ implementation: 'native', hash: () => new Uint8Array(32) });
  parentPort.postMessage({ type: 'ready', implementation: 'native' });
} catch (error) {
  parentPort.postMessage({ type: 'init-failed', error: serializeError(error) });
  parentPort.close();
}
