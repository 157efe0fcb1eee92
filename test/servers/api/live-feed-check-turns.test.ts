import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';
import { listenForFeed, until } from './live-feed-fixtures.js';

/** A feed client from `localAddress` whose replies go into one log shared by every client. */
async function connect(url: string, localAddress: string, name: string, log: string[]): Promise<WebSocket> {
  const socket = new WebSocket(url, { localAddress });
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string };
    log.push(`${name}:${message.type}`);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

describe('live feed: new addresses are checked in turns', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'live-turns',
      options: {
        feedIntervalMs: 600_000,
        liveFeed: {
          maxSubscriptionsPerClient: 20,
          maxAddressChecksPerClient: 20,
          newAddressBurstPerPeer: 20,
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

  it("a client subscribing to a burst of new addresses delays another peer's by about one check, not the burst", async () => {
    const log: string[] = [];
    const flooder = await connect(url, '127.0.0.21', 'flood', log);
    const other = await connect(url, '127.0.0.22', 'other', log);
    for (let i = 0; i < 8; i++) {
      flooder.send(JSON.stringify({ op: 'subscribe', address: fuegoAddress(300 + i) }));
    }
    other.send(JSON.stringify({ op: 'subscribe', address: fuegoAddress(400) }));
    await until(() => log.filter((entry) => entry.endsWith(':subscribed')).length === 9);
    const subscribed = log.filter((entry) => entry.endsWith(':subscribed'));
    // Checked as they arrive, all eight (~11 ms of ed25519 checks) would come first.
    expect(subscribed.indexOf('other:subscribed')).toBeLessThanOrEqual(3);
    // One connection's messages keep their order: its subscriptions all went through.
    expect(subscribed.filter((entry) => entry === 'flood:subscribed')).toHaveLength(8);
    flooder.close();
    other.close();
  });

  it('a subscribe and an unsubscribe of one address are handled in the order they were sent', async () => {
    const log: string[] = [];
    const client = await connect(url, '127.0.0.23', 'c', log);
    const address = fuegoAddress(500);
    client.send(JSON.stringify({ op: 'subscribe', address }));
    client.send(JSON.stringify({ op: 'unsubscribe', address }));
    await until(() => log.includes('c:unsubscribed'));
    expect(log.filter((entry) => entry !== 'c:hello')).toEqual(['c:subscribed', 'c:unsubscribed']);
    client.close();
  });
});
