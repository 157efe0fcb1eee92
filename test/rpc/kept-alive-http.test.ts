import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptAliveHttpClient, unreadableFraming } from '../../src/rpc/kept-alive-http.js';
import { readFixture } from '../helpers/fixtures.js';
import { rpcErrorOf } from '../helpers/rpc-error-of.js';

/** The real fuegod 1.9.3's answer to GET /getheight, head and body as captured. */
const CAPTURED_ANSWER = readFixture('fuegod-rpc/02-getheight-h1.response.http');
const CAPTURED_BODY = readFixture('fuegod-rpc/02-getheight-h1.response.body');
/** Its answer to the JSON-RPC call getlastblockheader (POST /json_rpc), as captured. */
const CAPTURED_HEADER_ANSWER = readFixture('fuegod-rpc/04-getlastblockheader-h1.response.http');
const CAPTURED_HEADER_BODY = readFixture('fuegod-rpc/04-getlastblockheader-h1.response.body');

/** What the scripted server does with a request: write this answer, or end the connection unanswered. */
type Reaction = string | { readonly bytes: string; readonly oneAtATime: true } | 'close' | 'ignore';

interface ScriptedServer {
  readonly port: number;
  /** Requests in arrival order: head, body (its Content-Length's bytes) and the connection (1, 2, ...) it came on. */
  readonly requests: Array<{ readonly head: string; readonly body: string; readonly connection: number }>;
  readonly connections: () => number;
  close(): Promise<void>;
}

/** A loopback TCP server that reads HTTP requests (a body by its Content-Length) and reacts to each as `react` says. */
async function startScriptedServer(
  react: (index: number, connection: number) => Reaction,
  host = '127.0.0.1',
): Promise<ScriptedServer> {
  const sockets = new Set<Socket>();
  const requests: Array<{ head: string; body: string; connection: number }> = [];
  let accepted = 0;
  const server: Server = createServer((socket) => {
    const connection = ++accepted;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return; // the body is still on its way
        requests.push({ head, body: pending.toString('utf8', end + 4, end + 4 + length), connection });
        pending = pending.subarray(end + 4 + length);
        const reaction = react(requests.length - 1, connection);
        if (reaction === 'close') socket.destroy();
        else if (reaction === 'ignore') continue;
        else if (typeof reaction === 'string') socket.write(reaction);
        else void writeOneByteAtATime(socket, reaction.bytes);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function writeOneByteAtATime(socket: Socket, bytes: string): Promise<void> {
  for (const byte of bytes) {
    if (socket.destroyed) return;
    socket.write(byte, 'latin1');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function answer(body: string, headers = ''): string {
  return `HTTP/1.1 200 OK\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe('KeptAliveHttpClient', () => {
  let server: ScriptedServer | undefined;
  let client: KeptAliveHttpClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  function clientOf(
    port: number,
    timeoutMs = 2_000,
    maxResponseBytes?: number,
    host = '127.0.0.1',
  ): KeptAliveHttpClient {
    client = new KeptAliveHttpClient({
      host,
      port,
      timeoutMs,
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
    });
    return client;
  }

  it("reads the real fuegod's /getheight answer as captured, every call over one connection", async () => {
    server = await startScriptedServer(() => CAPTURED_ANSWER);
    const http = clientOf(server.port);
    for (let i = 0; i < 3; i++) {
      expect(await http.get('/getheight')).toEqual({ status: 200, body: CAPTURED_BODY });
    }
    expect(server.connections()).toBe(1);
    expect(server.requests[0]?.head).toBe(
      `GET /getheight HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAccept: application/json`,
    );
  });

  it('names an IPv6 daemon in brackets in its Host header', async () => {
    server = await startScriptedServer(() => CAPTURED_ANSWER, '::1');
    expect((await clientOf(server.port, 2_000, undefined, '::1').get('/getheight')).body).toBe(CAPTURED_BODY);
    expect(server.requests[0]?.head).toContain(`\r\nHost: [::1]:${server.port}\r\n`);
  });

  it('reads an answer that arrives one byte at a time, and passes a status other than 200 on', async () => {
    const unavailable = 'HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\n\r\nbusy';
    server = await startScriptedServer((index) =>
      index === 0 ? { bytes: CAPTURED_ANSWER, oneAtATime: true } : unavailable,
    );
    const http = clientOf(server.port);
    expect(await http.get('/getheight')).toEqual({ status: 200, body: CAPTURED_BODY });
    expect(await http.get('/getheight')).toEqual({ status: 503, body: 'busy' });
    expect(server.connections()).toBe(1);
  });

  it('answers calls made together in turn, one at a time on one connection', async () => {
    server = await startScriptedServer((index) => answer(`{"height":${index}}`));
    const http = clientOf(server.port);
    const bodies = await Promise.all([0, 1, 2].map(() => http.get('/getheight')));
    expect(bodies.map((response) => response.body)).toEqual(['{"height":0}', '{"height":1}', '{"height":2}']);
    expect(server.connections()).toBe(1);
  });

  // The last column: well-formed HTTP that another client reads (unreadableFraming), or not.
  it.each([
    [
      'a chunked body',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      'Transfer-Encoding',
      true,
    ],
    [
      'no Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}',
      'no Content-Length',
      true,
    ],
    [
      'bytes past its Content-Length',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}{}',
      'more bytes than',
      false,
    ],
    ['a bad Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n{}', 'bad Content-Length', false],
    ['not HTTP', 'SSH-2.0-OpenSSH_9.6\r\n\r\n', 'not an HTTP/1.x answer', false],
  ])(
    'fails a call answered with %s (RPC_BAD_RESPONSE); the next goes out on a new connection',
    async (_, odd, says, otherFraming) => {
      server = await startScriptedServer((index) => (index === 0 ? odd : CAPTURED_ANSWER));
      const http = clientOf(server.port);
      const error = await rpcErrorOf(http.get('/getheight'));
      expect(error.code).toBe('RPC_BAD_RESPONSE');
      expect(unreadableFraming(error)).toBe(otherFraming);
      expect(error.message).toContain(says);
      expect(error.message).toContain(`http://127.0.0.1:${server.port}/getheight`);
      expect(await http.get('/getheight')).toEqual({ status: 200, body: CAPTURED_BODY });
      expect(server.connections()).toBe(2);
    },
  );

  it('refuses an answer larger than maxResponseBytes', async () => {
    server = await startScriptedServer(() => answer(`{"height":1,"pad":"${'x'.repeat(500)}"}`));
    const error = await rpcErrorOf(clientOf(server.port, 2_000, 256).get('/getheight'));
    expect(error.code).toBe('RPC_BAD_RESPONSE');
    expect(error.message).toContain('larger than 256 bytes');
  });

  it('ends the connection after an answer that says `Connection: close`, and opens another for the next call', async () => {
    server = await startScriptedServer(() => answer('{"height":7}', 'Connection: close\r\n'));
    const http = clientOf(server.port);
    expect((await http.get('/getheight')).body).toBe('{"height":7}');
    expect((await http.get('/getheight')).body).toBe('{"height":7}');
    expect(server.connections()).toBe(2);
  });

  it('asks again once, on a new connection, when the daemon closes a kept-alive one before answering', async () => {
    // The second request on every connection is met with a close (the daemon closed it as it came).
    server = await startScriptedServer((index) => (index === 1 ? 'close' : CAPTURED_ANSWER));
    const http = clientOf(server.port);
    expect((await http.get('/getheight')).body).toBe(CAPTURED_BODY);
    expect((await http.get('/getheight')).body).toBe(CAPTURED_BODY);
    expect(server.requests.map((request) => request.connection)).toEqual([1, 1, 2]);
  });

  it('fails with RPC_UNREACHABLE when a new connection is closed unanswered, or refused', async () => {
    server = await startScriptedServer(() => 'close');
    const closed = await rpcErrorOf(clientOf(server.port).get('/getheight'));
    expect(closed.code).toBe('RPC_UNREACHABLE');
    expect(server.requests).toHaveLength(1); // not sent again: the connection was not a kept-alive one

    const port = server.port;
    await server.close();
    server = undefined;
    const refused = await rpcErrorOf(clientOf(port).get('/getheight'));
    expect(refused.code).toBe('RPC_UNREACHABLE');
    expect(refused.data).toMatchObject({ path: '/getheight', errno: 'ECONNREFUSED' });
  });

  it('gives up after timeoutMs with RPC_TIMEOUT, and answers the next call on a new connection', async () => {
    server = await startScriptedServer((index) => (index === 0 ? 'ignore' : CAPTURED_ANSWER));
    const http = clientOf(server.port, 150);
    const started = performance.now();
    const error = await rpcErrorOf(http.get('/getheight'));
    expect(error.code).toBe('RPC_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await http.get('/getheight')).body).toBe(CAPTURED_BODY);
    expect(server.connections()).toBe(2);
  });

  it('closes its connection after 2 s idle, before a daemon would close it under a request', async () => {
    server = await startScriptedServer(() => CAPTURED_ANSWER);
    const http = clientOf(server.port);
    await http.get('/getheight');
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    await http.get('/getheight');
    expect(server.requests.map((request) => request.connection)).toEqual([1, 2]);
  });

  it("POSTs a JSON body and reads the real fuegod's getlastblockheader answer as captured, on the GETs' connection", async () => {
    server = await startScriptedServer((index) =>
      index % 2 === 0 ? CAPTURED_ANSWER : CAPTURED_HEADER_ANSWER,
    );
    const http = clientOf(server.port);
    const body = '{"jsonrpc":"2.0","id":"1","method":"getlastblockheader","params":{"é":1}}';
    for (let i = 0; i < 2; i++) {
      expect(await http.get('/getheight')).toEqual({ status: 200, body: CAPTURED_BODY });
      expect(await http.send('POST', '/json_rpc', body)).toEqual({ status: 200, body: CAPTURED_HEADER_BODY });
    }
    expect(server.connections()).toBe(1);
    // Content-Length counts bytes: the é is two.
    expect(server.requests[1]).toEqual({
      head: `POST /json_rpc HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1}`,
      body,
      connection: 1,
    });
  });

  it('sends a POST again once, whole, when the daemon closes a kept-alive connection before answering it', async () => {
    server = await startScriptedServer((index) => (index === 1 ? 'close' : CAPTURED_HEADER_ANSWER));
    const http = clientOf(server.port);
    const body = '{"jsonrpc":"2.0","id":"2","method":"getlastblockheader","params":{}}';
    expect((await http.send('POST', '/json_rpc', body)).body).toBe(CAPTURED_HEADER_BODY);
    expect((await http.send('POST', '/json_rpc', body)).body).toBe(CAPTURED_HEADER_BODY);
    expect(server.requests.map((request) => [request.connection, request.body])).toEqual([
      [1, body],
      [1, body],
      [2, body],
    ]);
  });

  it('refuses a GET with a body, and sends nothing once closed', async () => {
    server = await startScriptedServer(() => CAPTURED_ANSWER);
    const http = clientOf(server.port);
    expect((await rpcErrorOf(http.send('GET', '/getheight', 'x'))).code).toBe('RPC_BAD_REQUEST');
    expect(server.requests).toHaveLength(0);
    const inFlight = http.get('/getheight');
    http.close();
    expect((await rpcErrorOf(inFlight)).code).toBe('RPC_UNREACHABLE');
    expect((await rpcErrorOf(http.get('/getheight'))).code).toBe('RPC_UNREACHABLE');
  });
});
