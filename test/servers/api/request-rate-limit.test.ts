import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, silentLogger } from './api-fixtures.js';
import { listenForFeed } from './live-feed-fixtures.js';

const BURST = 5;
const REFUSAL_DELAY_MS = 200;

describe('API requests per peer', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'rate-limit',
      options: {
        rateLimit: {
          burst: BURST,
          requestsPerMinute: 1,
          exemptIps: ['192.0.2.1'],
          refusalDelayMs: REFUSAL_DELAY_MS,
        },
      },
    }));
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  const get = (remoteAddress: string, url = '/api/stats') => app.inject({ url, remoteAddress });

  it('serves a burst, then answers 429 RATE_LIMITED with Retry-After after a delay, before any work', async () => {
    for (let i = 0; i < BURST; i++) expect((await get('198.51.100.1')).statusCode).toBe(200);
    const started = Date.now();
    const refused = await get('198.51.100.1', '/api/payments?page=9&limit=100');
    expect(refused.statusCode).toBe(429);
    // Answered late: a flood on keep-alive connections waits instead of costing a reply per round trip.
    expect(Date.now() - started).toBeGreaterThanOrEqual(REFUSAL_DELAY_MS - 20);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(app.pool.rateLimit.refused).toBeGreaterThanOrEqual(1);
    const scrape = (await get('192.0.2.1', '/metrics')).payload;
    expect(scrape).toMatch(/^fuego_pool_api_refused_total\{reason="rate-limited"\} [1-9]/m);
  });

  it('counts an IPv6 client by its /64; other peers and exempt addresses are not slowed', async () => {
    for (let i = 0; i < BURST; i++) await get(`2001:db8:1:2::${i + 1}`);
    expect((await get('2001:db8:1:2::ff')).statusCode).toBe(429);
    expect((await get('2001:db8:1:3::1')).statusCode).toBe(200);
    expect((await get('198.51.100.2')).statusCode).toBe(200);
    for (let i = 0; i < 3 * BURST; i++) expect((await get('192.0.2.1')).statusCode).toBe(200);
  });

  it('an exempt address is exempt in its IPv4-mapped form too (an API listening on "::")', async () => {
    // A dual-stack server sees the reverse proxy at 192.0.2.1 as ::ffff:192.0.2.1: limited, every
    // visitor behind the proxy would share one budget.
    for (let i = 0; i < 3 * BURST; i++) expect((await get('::ffff:192.0.2.1')).statusCode).toBe(200);
    // A mapped client that is not exempt is the same peer as its plain IPv4 form.
    for (let i = 0; i < BURST; i++) expect((await get('198.51.100.3')).statusCode).toBe(200);
    expect((await get('::ffff:198.51.100.3')).statusCode).toBe(429);
  });

  it('a live feed connection takes a token too: past the budget the upgrade gets 429', async () => {
    const url = await listenForFeed(app);
    const open = (): Promise<WebSocket> =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url, { localAddress: '127.0.0.9' });
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      });
    const sockets: WebSocket[] = [];
    for (let i = 0; i < BURST; i++) sockets.push(await open());
    await expect(open()).rejects.toThrow(/429/);
    for (const socket of sockets) socket.close();
  });
});
