import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, silentLogger } from './api-fixtures.js';

const PER_PEER = 5;
const TOTAL = 12;

/** A raw TCP connection from `localAddress` that says nothing (a held, idle connection). */
interface Held {
  readonly socket: Socket;
  /** Set once the pool closed or reset it. */
  closed: boolean;
}

describe('API connections per peer and in total', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let port: number;
  const held: Held[] = [];

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'api-connection-caps',
      options: { maxConnections: TOTAL, maxConnectionsPerPeer: PER_PEER },
    }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    port = address.port;
  });

  afterEach(async () => {
    for (const connection of held.splice(0)) connection.socket.destroy();
    // The server hears each close before the next test counts its peers.
    await noConnectionsOpen(app);
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  const hold = (localAddress: string): Promise<Held> =>
    new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress });
      const connection: Held = { socket, closed: false };
      held.push(connection);
      socket.on('error', () => undefined);
      socket.once('close', () => {
        connection.closed = true;
        resolve(connection);
      });
      socket.once('connect', () => resolve(connection));
    });

  const get = (localAddress: string, path = '/api/stats'): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('error', reject);
      req.end();
    });

  /** Lets every reset reach its client; a held connection stays open for a minute (headersTimeout). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('a peer holding its share of connections gets further ones reset at accept; other peers are served', async () => {
    const connections: Held[] = [];
    for (let i = 0; i < PER_PEER + 3; i++) connections.push(await hold('127.0.0.9'));
    await settle();
    expect(connections.filter((c) => !c.closed)).toHaveLength(PER_PEER);
    expect(await get('127.0.0.10')).toBe(200);
    await expect(get('127.0.0.9')).rejects.toThrow(/ECONNRESET|socket hang up/);
    const scrape = await app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(scrape.payload).toMatch(/^fuego_pool_api_refused_total\{reason="connections-per-peer"\} [4-9]/m);

    // Its connections closed, the peer is served again.
    for (const connection of connections) connection.socket.destroy();
    await noConnectionsOpen(app);
    expect(await get('127.0.0.9')).toBe(200);
  });

  it('beyond the total, new connections are closed at accept, whoever they come from', async () => {
    const connections: Held[] = [];
    for (let i = 0; i < TOTAL; i++) connections.push(await hold(`127.0.1.${i + 1}`));
    await settle();
    expect(connections.filter((c) => !c.closed)).toHaveLength(TOTAL);
    const late = await hold('127.0.2.1');
    await settle();
    expect(late.closed).toBe(true);
    const scrape = await app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(scrape.payload).toMatch(/^fuego_pool_api_refused_total\{reason="connections-full"\} [1-9]/m);
  });

  it('exempt addresses (a reverse proxy on the host) are not capped per peer', async () => {
    const connections: Held[] = [];
    for (let i = 0; i < PER_PEER + 3; i++) connections.push(await hold('127.0.0.1'));
    await settle();
    expect(connections.filter((c) => !c.closed)).toHaveLength(PER_PEER + 3);
  });
});

/** Resolves once the API server has no TCP connection open. */
async function noConnectionsOpen(app: FastifyInstance): Promise<void> {
  const open = () =>
    new Promise<number>((resolve, reject) =>
      app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  const deadline = Date.now() + 3_000;
  while ((await open()) > 0) {
    if (Date.now() > deadline) throw new Error('API connections still open');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
