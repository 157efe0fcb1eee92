import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonHttpClient, type JsonHttpTls } from '../../src/rpc/json-http.js';
import { RpcError } from '../../src/rpc/rpc-error.js';
import {
  startTlsProxy,
  type TestCertificate,
  type TlsProxy,
  testCertificate,
} from '../helpers/tls-servers.js';

/** The JSON client over HTTPS: what a pool asks a remote fuegod through a TLS proxy. */
describe('JsonHttpClient over HTTPS', () => {
  let served: TestCertificate;
  let other: TestCertificate;
  let server: TlsProxy;

  beforeAll(async () => {
    [served, other] = await Promise.all([
      testCertificate({ namesLoopback: true }),
      testCertificate({ namesLoopback: false }),
    ]);
    server = await startTlsProxy(served);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  async function ask(tls: JsonHttpTls): Promise<unknown> {
    const client = new JsonHttpClient({ host: '127.0.0.1', port: server.port, timeoutMs: 5_000, tls });
    try {
      return await client.send('GET', '/getinfo');
    } finally {
      client.close();
    }
  }

  async function refusal(tls: JsonHttpTls): Promise<RpcError> {
    const error = await ask(tls).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RpcError);
    return error as RpcError;
  }

  it('answers over a pinned certificate, self-signed, and names itself https', async () => {
    expect(await ask({ fingerprint256: served.fingerprint })).toEqual({ status: 200, body: '{}' });
    const client = new JsonHttpClient({ host: '127.0.0.1', port: 1, timeoutMs: 1_000, tls: {} });
    expect(client.endpoint).toBe('https://127.0.0.1:1');
    client.close();
  });

  it('sends nothing to a server presenting another certificate than the pinned one', async () => {
    const before = server.requests();
    const error = await refusal({ fingerprint256: other.fingerprint });
    expect(error.code).toBe('RPC_UNREACHABLE');
    expect(error.message).toContain('not the pinned one');
    expect(error.message).toContain(served.fingerprint);
    expect(error.data).toMatchObject({ errno: 'TLS_FINGERPRINT_MISMATCH' });
    // Closed as the handshake ended: the request (credentials, a payment) never left.
    expect(server.requests()).toBe(before);
  });

  it('without a pin, trusts only a CA that signed a certificate naming the host', async () => {
    // The system's CAs did not sign a self-signed certificate.
    const before = server.requests();
    const untrusted = await refusal({});
    expect(untrusted.code).toBe('RPC_UNREACHABLE');
    expect(untrusted.data).toMatchObject({ errno: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    // Given as the CA, it is trusted for the address it names...
    expect(await ask({ ca: served.cert })).toEqual({ status: 200, body: '{}' });
    // ...and another CA is not.
    expect((await refusal({ ca: other.cert })).code).toBe('RPC_UNREACHABLE');
    expect(server.requests()).toBe(before + 1);
  });
});
