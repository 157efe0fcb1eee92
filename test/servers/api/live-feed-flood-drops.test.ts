import type { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FloodDrops } from '../../../src/servers/flood-drop/flood-drops.js';
import type { ListenerFilter } from '../../../src/servers/flood-drop/listener-filter.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, silentLogger } from './api-fixtures.js';
import { listenForFeed, until } from './live-feed-fixtures.js';

/** Takes the program as attached without touching a socket: what is dropped is read from FloodDrops. */
const noKernel: ListenerFilter = { attach: () => true, detach: () => undefined } as unknown as ListenerFilter;

/**
 * How a feed client fares: 'open' (the handshake passed), or the HTTP status that refused it.
 * After an open, `bad` malformed messages are sent and the close awaited.
 */
function feedAttempt(url: string, localAddress: string, bad = 0): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { localAddress });
    socket.on('unexpected-response', (_request, response) => {
      resolve(`HTTP ${response.statusCode}`);
      socket.terminate();
    });
    socket.on('error', () => resolve('error'));
    socket.on('open', () => {
      if (bad === 0) {
        socket.close();
        resolve('open');
        return;
      }
      socket.on('close', () => resolve('closed'));
      for (let i = 0; i < bad; i++) socket.send('not json');
    });
  });
}

describe('live feed refusals and the kernel drops of flooding peers', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let url: string;
  let drops: FloodDrops;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    drops = new FloodDrops(
      { refusals: 5, refusalsPerSec: 1, dropMs: 60_000, maxDropMs: 60_000, maxSources: 8 },
      noKernel,
      silentLogger,
    );
    drops.addListener({} as Server);
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'feed-drops',
      options: {
        feedIntervalMs: 600_000,
        rateLimit: { requestsPerMinute: 1, burst: 10, exemptIps: [] },
        liveFeed: { maxClients: 50, maxClientsPerPeer: 50, maxBadRequests: 2 },
      },
      modules: { floodDrops: drops },
    }));
    url = await listenForFeed(app);
  });

  afterAll(async () => {
    drops?.close();
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('counts handshakes refused with 429 toward a drop of that peer, and no one else', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) outcomes.push(await feedAttempt(url, '127.0.0.21'));
    expect(outcomes).toContain('HTTP 429');
    await until(() => drops.dropping() === 1);
    expect(await feedAttempt(url, '127.0.0.22')).toBe('open');
    expect(drops.dropping()).toBe(1);
  });

  it('counts connections closed for bad requests toward a drop of that peer', async () => {
    const before = drops.dropping();
    for (let i = 0; i < 8; i++) expect(await feedAttempt(url, '127.0.0.23', 2)).toBe('closed');
    await until(() => drops.dropping() === before + 1);
  });
});
