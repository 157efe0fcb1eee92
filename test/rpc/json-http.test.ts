import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonHttpClient } from '../../src/rpc/json-http.js';

/** How long the test server keeps an idle keep-alive connection open, without announcing it. */
const SERVER_IDLE_CLOSE_MS = 2_500;

interface KeepAliveServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: () => number;
  close(): Promise<void>;
}

/**
 * A bare HTTP/1.1 server that keeps connections alive and closes one after SERVER_IDLE_CLOSE_MS
 * without a request, sending no `Keep-Alive: timeout=` hint (as a daemon need not); each GET is
 * answered `{}` after `answerDelayMs`.
 */
async function startKeepAliveServer(answerDelayMs = 0): Promise<KeepAliveServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(SERVER_IDLE_CLOSE_MS, () => socket.destroy());
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        setTimeout(() => {
          socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
        }, answerDelayMs);
      }
    });
  });
  return { ...(await listenOnLoopback(server, sockets)), connections: () => accepted };
}

/** Listens on 127.0.0.1 (a free port); close() ends the server and every socket still open. */
async function listenOnLoopback(
  server: Server,
  sockets: Set<Socket>,
): Promise<{ readonly port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Keeps the event loop busy for `ms`, as a loaded machine or a long synchronous task does. */
function blockEventLoop(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy
  }
}

describe('JsonHttpClient keep-alive connections', () => {
  let server: KeepAliveServer | undefined;
  let client: JsonHttpClient | undefined;

  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('a request sent as the server closes the idle connection goes out on a fresh one, not into a reset', async () => {
    server = await startKeepAliveServer();
    client = new JsonHttpClient({ host: '127.0.0.1', port: server.port, timeoutMs: 5_000 });
    expect((await client.send('GET', '/first')).body).toBe('{}');

    // The request is due just after the server's idle close, and both come due while the event
    // loop is busy: they then run back to back, the close first, before the client could read it.
    const second = new Promise<string>((resolve) => {
      setTimeout(() => {
        client?.send('GET', '/second').then(
          (response) => resolve(response.body),
          (error: unknown) => resolve(String(error)),
        );
      }, SERVER_IDLE_CLOSE_MS + 100);
    });
    blockEventLoop(SERVER_IDLE_CLOSE_MS + 300);

    expect(await second).toBe('{}');
    expect(server.connections()).toBe(2);
  });

  it('still waits up to timeoutMs for an answer slower than the idle limit of its connection', async () => {
    server = await startKeepAliveServer(2_200);
    client = new JsonHttpClient({ host: '127.0.0.1', port: server.port, timeoutMs: 5_000 });
    expect((await client.send('GET', '/slow')).body).toBe('{}');
    expect(server.connections()).toBe(1);
  });

  it('a request the server resets on a kept-alive connection before answering is sent again once on a new one, only where resending is safe', async () => {
    // The second request on any connection is reset unanswered: the server closed the connection
    // as the request came (the race the idle limit above narrows but cannot rule out).
    const resets = await startResettingServer();
    try {
      const daemonLike = new JsonHttpClient({
        host: '127.0.0.1',
        port: resets.port,
        timeoutMs: 5_000,
        resendOnStaleConnection: true,
      });
      expect((await daemonLike.send('POST', '/json_rpc', '{}')).body).toBe('{}');
      expect((await daemonLike.send('POST', '/json_rpc', '{}')).body).toBe('{}');
      expect(resets.requests()).toBe(3); // the reset one, then the same again on a new connection
      daemonLike.close();

      // walletd's sendTransaction must never go out twice: the reset is the caller's to judge.
      const walletLike = new JsonHttpClient({ host: '127.0.0.1', port: resets.port, timeoutMs: 5_000 });
      expect((await walletLike.send('POST', '/json_rpc', '{}')).body).toBe('{}');
      await expect(walletLike.send('POST', '/json_rpc', '{}')).rejects.toMatchObject({
        code: 'RPC_UNREACHABLE',
      });
      expect(resets.requests()).toBe(5);
      walletLike.close();
    } finally {
      await resets.close();
    }
  });
});

/** A server that answers the first request on each connection and resets the connection at the second. */
async function startResettingServer(): Promise<{
  readonly port: number;
  readonly requests: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let onThisConnection = 0;
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      const end = pending.indexOf('\r\n\r\n');
      if (end === -1 || !pending.slice(end + 4).includes('{}')) return;
      pending = '';
      requests += 1;
      onThisConnection += 1;
      if (onThisConnection > 1) socket.resetAndDestroy();
      else socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    });
  });
  return { ...(await listenOnLoopback(server, sockets)), requests: () => requests };
}
