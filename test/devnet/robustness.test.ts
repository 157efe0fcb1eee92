import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, send, startTestDevnet } from './devnet-test-helpers.js';

describe('bad requests never take the devnet down', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({
      daemon: { maxBodyBytes: 64 * 1024 },
      wallet: { maxBodyBytes: 64 * 1024 },
    });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const daemonCases: [string, string, unknown][] = [
    ['malformed JSON', '{"jsonrpc":', { error: { code: -32700, message: 'Parse error' }, jsonrpc: '2.0' }],
    ['empty body', '', { error: { code: -32700, message: 'Parse error' }, jsonrpc: '2.0' }],
    [
      'JSON array',
      '[1,2]',
      { error: { code: -32603, message: 'JsonValue type is not OBJECT' }, jsonrpc: '2.0' },
    ],
    ['no method', '{"id":"1"}', { error: { code: -32600, message: 'Invalid request' }, jsonrpc: '2.0' }],
    [
      'numeric method',
      '{"id":"1","method":5}',
      { error: { code: -32603, message: 'JsonValue type is not STRING' }, jsonrpc: '2.0' },
    ],
    [
      'unknown method',
      '{"id":"1","method":"getblockhash","params":[0]}',
      { error: { code: -32601, message: 'Method not found' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'missing params',
      '{"id":"1","method":"getlastblockheader"}',
      { error: { code: -32603, message: 'JsonValue type is not ARRAY or OBJECT' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'wrong type',
      '{"id":"1","method":"getblocktemplate","params":{"reserve_size":"8","wallet_address":"x"}}',
      { error: { code: -32603, message: 'JsonValue type is not INTEGER' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'array for object',
      '{"id":"1","method":"getblockheaderbyheight","params":[1]}',
      { error: { code: -32603, message: 'JsonValue type is not OBJECT' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'float height',
      '{"id":"1","method":"getblockheaderbyheight","params":{"height":1.5}}',
      { error: { code: -32603, message: 'JsonValue type is not INTEGER' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'submitblock number',
      '{"id":"1","method":"submitblock","params":[7]}',
      { error: { code: -32603, message: 'JsonValue type is not STRING' }, id: '1', jsonrpc: '2.0' },
    ],
    [
      'block hash string',
      '{"id":"1","method":"on_getblockhash","params":["0"]}',
      { error: { code: -32603, message: 'JsonValue type is not INTEGER' }, id: '1', jsonrpc: '2.0' },
    ],
  ];

  test.each(daemonCases)('daemon: %s', async (_what, body, expected) => {
    const reply = await send(`${devnet.daemonUrl}/json_rpc`, 'POST', body);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual(expected);
  });

  test('direct paths with junk bodies answer Failed', async () => {
    for (const path of ['/sendrawtransaction', '/gettransactions', '/start_mining']) {
      for (const body of ['{', '[]', 'null', '{"tx_as_hex":5,"txs_hashes":"x","miner_address":1}']) {
        const reply = await send(`${devnet.daemonUrl}${path}`, 'POST', body);
        expect(reply.status).toBe(200);
        expect(JSON.parse(reply.text).status).toMatch(/^Failed/);
      }
    }
  });

  test('wallet: malformed, wrong types and unknown methods', async () => {
    const cases: [string, number][] = [
      ['{"jsonrpc":', -32700],
      ['[]', -32600],
      ['{"id":1}', -32600],
      ['{"id":1,"method":"nope","params":{}}', -32601],
      ['{"id":1,"method":"getBalance","params":{"address":7}}', -32600],
      ['{"id":1,"method":"getTransactions","params":[]}', -32600],
      ['{"id":1,"method":"sendTransaction","params":{"transfers":"x","fee":1,"anonymity":2}}', -32600],
      [
        '{"id":1,"method":"sendTransaction","params":{"transfers":[{"address":1,"amount":-5}],"fee":1,"anonymity":2}}',
        -32600,
      ],
      ['{"id":1,"method":"getTransactions","params":{"firstBlockIndex":-1,"blockCount":1}}', -32600],
    ];
    for (const [body, code] of cases) {
      const reply = await send(`${devnet.walletUrl}/json_rpc`, 'POST', body);
      expect(JSON.parse(reply.text).error.code, body).toBe(code);
    }
  });

  test('oversized bodies get 413 and the connection is closed', async () => {
    for (const url of [devnet.daemonUrl, devnet.walletUrl]) {
      const status = await new Promise<number | string>((resolve) => {
        const req = request(`${url}/json_rpc`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', (error) => resolve(error.message));
        req.write('x'.repeat(200 * 1024));
        req.end();
      });
      expect([413, 'socket hang up', 'write EPIPE', 'read ECONNRESET']).toContain(status);
    }
  });

  test('still answers after all of the above', async () => {
    const info = await send(`${devnet.daemonUrl}/getinfo`, 'GET');
    expect(JSON.parse(info.text).status).toBe('OK');
    expect((await jsonRpc(devnet.walletUrl, 'getStatus', {}, 1))['result']).toBeDefined();
  });
});
