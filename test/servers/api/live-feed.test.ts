import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RELAYED_EVENTS } from '../../../src/cluster/redis-event-relay.js';
import type { PoolEventBus } from '../../../src/pool/events.js';
import { FORWARDED_EVENTS, LIVE_FEED_PATH } from '../../../src/servers/api/live-feed.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { DEFAULT_MAX_WORKERS_PER_MINER } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import { buildTestApi, fuegoAddress, silentLogger } from './api-fixtures.js';
import { listenForFeed, until } from './live-feed-fixtures.js';

interface Message {
  type: string;
  data: Record<string, unknown>;
}

/** A ws client that records every message. */
async function connect(
  url: string,
): Promise<{ socket: WebSocket; messages: Message[]; closed: Promise<number> }> {
  const socket = new WebSocket(url);
  const messages: Message[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages, closed };
}

describe('live feed events on an API-only node', () => {
  it('are relayed between processes, all but network-block (each API polls the daemon itself)', () => {
    const notRelayed = FORWARDED_EVENTS.filter((name) => !RELAYED_EVENTS.includes(name));
    expect(notRelayed).toEqual(['network-block']);
  });
});

describe('WebSocket live feed', () => {
  let server: TestRedis;
  let redis: Redis;
  let app: FastifyInstance;
  let events: PoolEventBus;
  let url: string;
  const keyPrefix = 'live-test';
  const MINER = fuegoAddress(11);

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    await new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    ).record([
      {
        address: MINER,
        worker: 'w',
        difficulty: 60_000,
        height: 1,
        timestampMs: Date.now() - 60_000,
        solo: false,
        stale: false,
      },
    ]);
    ({ app, events } = await buildTestApi({
      redis,
      keyPrefix,
      options: {
        feedIntervalMs: 600_000, // ticks are driven by the test
        liveFeed: { maxBufferedBytes: 64 * 1024, maxClients: 3, maxSubscriptionsPerClient: 1 },
      },
    }));
    url = await listenForFeed(app);
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.stop();
  });

  it('greets, forwards pool events, and sends pool and subscribed miner hashrate each tick', async () => {
    const client = await connect(url);
    await until(() => client.messages.some((m) => m.type === 'hello'));
    events.publish('block-found', {
      height: 7,
      hash: 'aa'.repeat(32),
      finderAddress: MINER,
      solo: false,
      timestampMs: 1,
    });
    events.publish('block-refused', {
      height: 8,
      hash: 'dd'.repeat(32),
      finderAddress: MINER,
      solo: false,
      timestampMs: 2,
      reason: 'pow-disagreement',
      likelyCause: 'the daemon most likely computes a different cn/upx2',
    });
    events.publish('payment-sent', {
      batchId: 'b1',
      transactionHash: 'bb'.repeat(32),
      recipients: 2,
      amountAtomic: 10n ** 19n,
      feeAtomic: 1n,
      timestampMs: 2,
    });
    events.publish('network-block', { height: 9, hash: 'cc'.repeat(32), difficulty: 5n, timestampMs: 3 });
    events.publish('network-block', { height: 9, hash: 'cc'.repeat(32), difficulty: 5n, timestampMs: 3 });
    client.socket.send(JSON.stringify({ op: 'subscribe', address: 'fireBogus' }));
    client.socket.send(JSON.stringify({ op: 'subscribe', address: MINER }));
    client.socket.send(JSON.stringify({ op: 'subscribe', address: fuegoAddress(12) }));
    await until(() => client.messages.filter((m) => m.type === 'error').length === 2);
    await app.pool.liveFeed.tick();
    await until(() => client.messages.some((m) => m.type === 'miner-hashrate'));
    const types = client.messages.map((m) => m.type);
    expect(types.filter((t) => t === 'network-block')).toHaveLength(1);
    expect(client.messages.find((m) => m.type === 'payment-sent')?.data['amountAtomic']).toBe(
      '10000000000000000000',
    );
    expect(client.messages.find((m) => m.type === 'block-found')?.data['height']).toBe(7);
    expect(client.messages.find((m) => m.type === 'block-refused')?.data).toMatchObject({
      height: 8,
      reason: 'pow-disagreement',
      likelyCause: expect.stringContaining('cn/upx2'),
    });
    expect(client.messages.filter((m) => m.type === 'error').map((m) => m.data['code'])).toEqual([
      'INVALID_ADDRESS',
      'TOO_MANY_SUBSCRIPTIONS',
    ]);
    const pool = client.messages.find((m) => m.type === 'pool-hashrate');
    expect(pool?.data).toMatchObject({ miners: 1, workers: 1 });
    const miner = client.messages.find((m) => m.type === 'miner-hashrate');
    expect(miner?.data['address']).toBe(MINER);
    expect(miner?.data['hashrate']).toBeGreaterThan(0);
    client.socket.close();
    await client.closed;
  });

  it('forwards block-orphaned-after-credit like block-orphaned, its credited reward as a string', async () => {
    const client = await connect(url);
    try {
      await until(() => client.messages.some((m) => m.type === 'hello'));
      events.publish('block-orphaned-after-credit', {
        height: 6,
        hash: 'ee'.repeat(32),
        rewardAtomic: 10n ** 19n,
      });
      await until(() => client.messages.some((m) => m.type === 'block-orphaned-after-credit'));
      expect(client.messages.find((m) => m.type === 'block-orphaned-after-credit')?.data).toEqual({
        height: 6,
        hash: 'ee'.repeat(32),
        rewardAtomic: '10000000000000000000',
      });
    } finally {
      client.socket.close();
      await client.closed;
    }
  });

  it('answers a repeated subscribe with subscribed again (a client waiting for the answer gets it), following once', async () => {
    const client = await connect(url);
    try {
      await until(() => client.messages.some((m) => m.type === 'hello'));
      for (let i = 0; i < 2; i++) client.socket.send(JSON.stringify({ op: 'subscribe', address: MINER }));
      client.socket.send(JSON.stringify({ op: 'unsubscribe', address: MINER }));
      await until(() => client.messages.some((m) => m.type === 'unsubscribed'));
      const answers = client.messages.filter((m) => m.type !== 'hello');
      expect(answers.map((m) => [m.type, m.data['address']])).toEqual([
        ['subscribed', MINER],
        ['subscribed', MINER],
        ['unsubscribed', MINER],
      ]);
      // One unsubscribe ends the one subscription: the next tick sends no miner-hashrate.
      await app.pool.liveFeed.tick();
      await until(() => client.messages.some((m) => m.type === 'pool-hashrate'));
      expect(client.messages.some((m) => m.type === 'miner-hashrate')).toBe(false);
    } finally {
      client.socket.close();
      await client.closed;
    }
  });

  it('a refused subscribe names the address it refuses (a client subscribing several can tell which)', async () => {
    const client = await connect(url);
    try {
      await until(() => client.messages.some((m) => m.type === 'hello'));
      const bogus = 'fireNotAnAddress';
      for (const address of [bogus, MINER, fuegoAddress(13)])
        client.socket.send(JSON.stringify({ op: 'subscribe', address }));
      await until(() => client.messages.filter((m) => m.type === 'error').length === 2);
      const answers = client.messages.filter((m) => m.type === 'error' || m.type === 'subscribed');
      expect(answers.map((m) => [m.type, m.data['code'] ?? null, m.data['address']])).toEqual([
        ['error', 'INVALID_ADDRESS', bogus],
        ['subscribed', null, MINER],
        ['error', 'TOO_MANY_SUBSCRIPTIONS', fuegoAddress(13)],
      ]);
    } finally {
      client.socket.close();
      await client.closed;
    }
  });

  it('drops a client that does not read once its unsent data passes the bound', async () => {
    const slow = await connect(url);
    const healthy = await connect(url);
    await until(() => slow.messages.length > 0 && healthy.messages.length > 0);
    slow.socket.pause(); // stops reading: the kernel buffers fill, then the server's queue grows
    const before = app.pool.liveFeed.metrics().droppedSlow;
    const bulky = 'x'.repeat(8_000);
    for (let i = 0; i < 2_000 && app.pool.liveFeed.metrics().droppedSlow === before; i++) {
      events.publish('block-orphaned', { height: i, hash: bulky });
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(app.pool.liveFeed.metrics().droppedSlow).toBe(before + 1);
    slow.socket.resume();
    await slow.closed;
    // The reading client is unaffected.
    events.publish('block-confirmed', { height: 1, hash: 'dd'.repeat(32), rewardAtomic: 5n });
    await until(() => healthy.messages.some((m) => m.type === 'block-confirmed'), 10_000);
    expect(healthy.socket.readyState).toBe(WebSocket.OPEN);
    healthy.socket.close();
    await healthy.closed;
  });

  it('refuses connections beyond maxClients and upgrades on other paths', async () => {
    const clients = await Promise.all([connect(url), connect(url), connect(url)]);
    await until(() => app.pool.liveFeed.metrics().clients === 3);
    await expect(connect(url)).rejects.toThrow(/503/);
    await expect(connect(url.replace(LIVE_FEED_PATH, '/elsewhere'))).rejects.toThrow(/404/);
    for (const client of clients) client.socket.close();
    await Promise.all(clients.map((client) => client.closed));
  });
});
