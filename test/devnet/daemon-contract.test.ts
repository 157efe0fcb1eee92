import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { capturedCases, send, shapeDifferences, startTestDevnet } from './devnet-test-helpers.js';

/**
 * Cases whose captured answer depends on the real testnet's chain (blocks and transactions the
 * devnet cannot have): a real block accepted, or a lookup of a real block/transaction.
 */
const CHAIN_SPECIFIC = new Set([
  '51-submitblock-solved-v9-h15-OK',
  '63-f_block_json-h15',
  '75-f_transaction_json-fee1-tx-mined',
  '81-submitblock-solved-after-restart-h66',
]);

/**
 * Cases that ask for a height just past the captured chain's tip (1 block then): the devnet starts
 * taller, so the height is rewritten to the devnet's own height, which must fail the same way.
 */
const PAST_TIP = new Set(['07-getblockheaderbyheight-equal-height', '25-on_getblockhash-past-tip']);

describe('daemon contract: the captured fuegod 1.9.3 requests against the devnet', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    // Extensions off: the captured daemon does not serve them (cases 20-22 expect 404).
    devnet = await startTestDevnet({ daemon: { extensions: false } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const cases = capturedCases('fuegod-rpc').filter((c) => !CHAIN_SPECIFIC.has(c.name));
  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, captured) => {
    const body = PAST_TIP.has(captured.name)
      ? captured.body.replace(/("height":|\[)\d+/, `$1${devnet.chain.height}`)
      : captured.body;
    const reply = await send(`${devnet.daemonUrl}${captured.path}`, captured.method, body);
    expect(reply.status).toBe(captured.status);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    if (captured.status === 404) {
      expect(reply.text).toBe(captured.responseBody);
      return;
    }
    expect(reply.headers.get('content-type')).toContain('application/json');
    const expected = JSON.parse(captured.responseBody) as unknown;
    const actual = JSON.parse(reply.text) as unknown;
    expect(shapeDifferences(expected, actual)).toEqual([]);
  });

  test('JSON-RPC replies repeat Content-Type like the real daemon', async () => {
    const reply = await send(
      `${devnet.daemonUrl}/json_rpc`,
      'POST',
      '{"jsonrpc":"2.0","id":"1","method":"getblockcount","params":{}}',
    );
    expect(reply.headers.get('content-type')).toBe('application/json, application/json');
  });
});
