import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { send, startTestDevnet } from './devnet-test-helpers.js';

/**
 * fuegod's HTTP server refuses a direct path that needs a ready core with HTTP 500 and the body
 * "Core is busy" (RpcServer::processRequest sets STATUS_500 before calling the handler), not 503.
 */
describe('devnet fuegod while the core is busy: direct paths', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('/gettransactions and /sendrawtransaction answer HTTP 500 "Core is busy"', async () => {
    devnet.control.setDaemonBusy(true);
    try {
      for (const path of ['/gettransactions', '/sendrawtransaction']) {
        const reply = await send(`${devnet.daemonUrl}${path}`, 'POST', '{}');
        expect({ path, status: reply.status, body: reply.text }).toEqual({
          path,
          status: 500,
          body: 'Core is busy',
        });
      }
    } finally {
      devnet.control.setDaemonBusy(false);
    }
  });
});
