import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { addressWithBadKey } from '../../helpers/bad-key-address.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';
import { listenForFeed, until } from './live-feed-fixtures.js';

interface Feed {
  socket: WebSocket;
  codes: string[];
  closed: Promise<{ code: number; reason: string }>;
}

/** A ws client from `localAddress` (127.0.0.x are distinct peers on loopback) that records error codes. */
async function connect(url: string, localAddress = '127.0.0.1'): Promise<Feed> {
  const socket = new WebSocket(url, { localAddress });
  const codes: string[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; data: { code?: string } };
    if (message.type === 'error') codes.push(message.data.code ?? '');
    else codes.push(message.type);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, codes, closed };
}

/** `promise`, or a rejection after `ms` (a limit that does not act must fail the test, not hang it). */
function within<T>(promise: Promise<T>, ms = 3_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not settled in ${ms} ms`)), ms)),
  ]);
}

describe('live feed abuse limits', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'live-abuse',
      options: {
        feedIntervalMs: 600_000, // ticks are driven by the test
        maxLongPollWaiters: 10,
        maxLongPollWaitersPerPeer: 2,
        liveFeed: {
          maxClients: 10,
          maxClientsPerPeer: 2,
          maxSubscriptionsPerClient: 1,
          maxBadRequests: 3,
          maxAddressChecksPerClient: 2,
          newAddressBurstPerPeer: 3,
          newAddressesPerPeerPerMinute: 1,
        },
      },
    }));
    url = await listenForFeed(app);
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('caps feed connections per peer while another peer still connects', async () => {
    const mine = [await connect(url, '127.0.0.2'), await connect(url, '127.0.0.2')];
    await expect(connect(url, '127.0.0.2')).rejects.toThrow(/429/);
    const other = await connect(url, '127.0.0.3');
    expect(other.socket.readyState).toBe(WebSocket.OPEN);
    for (const feed of [...mine, other]) feed.socket.close();
    await Promise.all([...mine, other].map((feed) => feed.closed));
    await until(() => app.pool.liveFeed.metrics().clients === 0);
    const again = await connect(url, '127.0.0.2'); // slots are given back on close
    again.socket.close();
    await again.closed;
  });

  it('closes a socket after maxBadRequests bad requests (1008)', async () => {
    const feed = await connect(url, '127.0.0.4');
    feed.socket.send('not json');
    feed.socket.send(JSON.stringify({ op: 'dance' }));
    feed.socket.send(JSON.stringify({ op: 'subscribe', address: 'fireBogus' }));
    const { code, reason } = await within(feed.closed);
    expect(code).toBe(1008);
    expect(reason).toMatch(/bad requests/);
    expect(feed.codes.filter((c) => c === 'BAD_REQUEST' || c === 'INVALID_ADDRESS')).toHaveLength(3);
  });

  it('does not decode an address when the socket is over its subscription limit', async () => {
    const feed = await connect(url, '127.0.0.5');
    feed.socket.send(JSON.stringify({ op: 'subscribe', address: fuegoAddress(21) }));
    await until(() => feed.codes.includes('subscribed'));
    // Over the limit the request is refused before the (costly) address check: an invalid
    // address gets TOO_MANY_SUBSCRIPTIONS, not INVALID_ADDRESS.
    feed.socket.send(JSON.stringify({ op: 'subscribe', address: 'fireBogus' }));
    await until(() => feed.codes.includes('TOO_MANY_SUBSCRIPTIONS'));
    expect(feed.codes).not.toContain('INVALID_ADDRESS');
    feed.socket.close();
    await feed.closed;
  });

  it('bounds the new addresses one socket may have decoded (subscribe, unsubscribe, repeat)', async () => {
    const feed = await connect(url, '127.0.0.6');
    for (const seed of [31, 32, 33]) {
      const address = fuegoAddress(seed);
      feed.socket.send(JSON.stringify({ op: 'subscribe', address }));
      feed.socket.send(JSON.stringify({ op: 'unsubscribe', address }));
    }
    await until(() => feed.codes.filter((c) => c === 'unsubscribed').length === 3);
    expect(feed.codes.filter((c) => c === 'subscribed')).toHaveLength(2);
    expect(feed.codes).toContain('TOO_MANY_REQUESTS');
    feed.socket.close();
    await feed.closed;
  });

  it("bounds a peer's new addresses over all its connections: reconnecting brings no new budget", async () => {
    const follow = (feed: Feed, seed: number) => {
      const address = fuegoAddress(seed);
      feed.socket.send(JSON.stringify({ op: 'subscribe', address }));
      feed.socket.send(JSON.stringify({ op: 'unsubscribe', address }));
    };
    const first = await connect(url, '127.0.0.7');
    for (const seed of [41, 42]) follow(first, seed);
    await until(() => first.codes.filter((c) => c === 'unsubscribed').length === 2);
    first.socket.close();
    await first.closed;
    // The peer's budget of 3 has one left: a fresh connection does not reset it.
    const second = await connect(url, '127.0.0.7');
    for (const seed of [43, 44]) follow(second, seed);
    await until(() => second.codes.includes('TOO_MANY_REQUESTS'));
    expect(second.codes.filter((c) => c === 'subscribed')).toHaveLength(1);
    // Another peer has its own budget.
    const other = await connect(url, '127.0.0.8');
    follow(other, 44);
    await until(() => other.codes.includes('subscribed'));
    for (const feed of [second, other]) feed.socket.close();
    await Promise.all([second.closed, other.closed]);
  });

  it('refuses an address found invalid before without checking or charging it again, on any connection', async () => {
    const bogus = addressWithBadKey();
    const first = await connect(url, '127.0.0.9');
    first.socket.send(JSON.stringify({ op: 'subscribe', address: bogus }));
    first.socket.send(JSON.stringify({ op: 'subscribe', address: bogus }));
    await until(() => first.codes.filter((c) => c === 'INVALID_ADDRESS').length === 2);
    const second = await connect(url, '127.0.0.9');
    second.socket.send(JSON.stringify({ op: 'subscribe', address: bogus }));
    await until(() => second.codes.includes('INVALID_ADDRESS'));
    // Only the first check was charged to the peer (budget 3): a new valid address still fits.
    second.socket.send(JSON.stringify({ op: 'subscribe', address: fuegoAddress(51) }));
    await until(() => second.codes.length === 3);
    expect(second.codes).toEqual(['hello', 'INVALID_ADDRESS', 'subscribed']);
    for (const feed of [first, second]) feed.socket.close();
    await Promise.all([first.closed, second.closed]);
  });

  it('caps /live_stats waiters per peer with 429 while other peers still wait', async () => {
    // inject() starts a request only when awaited: Promise.resolve starts it now.
    const wait = (remoteAddress: string) =>
      Promise.resolve(app.inject({ url: '/live_stats', remoteAddress }));
    const waiting = [wait('10.0.0.1'), wait('10.0.0.1')];
    await new Promise((resolve) => setTimeout(resolve, 200)); // both reach the long poll
    const refused = await within(wait('10.0.0.1'));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'TOO_MANY_WAITERS_FROM_PEER' } });
    const other = wait('10.0.0.2');
    await new Promise((resolve) => setTimeout(resolve, 200)); // another peer still waits
    await app.pool.liveFeed.tick();
    for (const reply of await within(Promise.all([...waiting, other]))) expect(reply.statusCode).toBe(200);
  });
});
