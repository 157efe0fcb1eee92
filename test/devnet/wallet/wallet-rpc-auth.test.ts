import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { startTestDevnet } from '../devnet-test-helpers.js';

const GET_STATUS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getStatus', params: {} });

/** The devnet's walletd started as `walletd --rpc-user pool --rpc-password s3cret`. */
describe('devnet walletd with --rpc-user / --rpc-password', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { rpcUser: 'pool', rpcPassword: 's3cret' } });
  });
  afterAll(() => devnet?.stop());

  async function post(authorization?: string): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization !== undefined) headers['authorization'] = authorization;
    return fetch(`${devnet.walletUrl}/json_rpc`, { method: 'POST', headers, body: GET_STATUS });
  }

  it("refuses a call without walletd's credentials as walletd does: 401, a Basic challenge, plain text", async () => {
    for (const authorization of [undefined, `Basic ${btoa('pool:wrong')}`, `basic ${btoa('pool:s3cret')}`]) {
      const reply = await post(authorization);
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Basic realm="RPC"');
      // walletd starts every reply as JSON, then adds the refusal's own type: both are sent.
      expect(reply.headers.get('content-type')).toBe('application/json, text/plain');
      expect(await reply.text()).toBe('Authorization required');
    }
  });

  it('answers a call that carries them', async () => {
    const reply = await post(`Basic ${btoa('pool:s3cret')}`);
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { result: { blockCount: number } };
    expect(body.result.blockCount).toBeGreaterThan(0);
  });
});
