// Fake verifier worker for test/pow/verifier-pool.test.ts: forwards the same warning twice (as
// every worker of an 'auto' pool does when the addon is missing), then reports ready.
import { parentPort } from 'node:worker_threads';

const warning = {
  type: 'log',
  level: 'warn',
  obj: { code: 'NATIVE_POW_UNAVAILABLE' },
  msg: 'fallback warning',
};
parentPort.postMessage(warning);
parentPort.postMessage(warning);
parentPort.on('message', (message) => {
  if (message.type === 'close') parentPort.close();
});
parentPort.postMessage({ type: 'ready', implementation: 'typescript' });
