import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PoolNode } from '../../src/app/pool-node.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/logger.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';

const POOL_ADDRESS =
  'fireVHx639SLMhzmBoJ8drTXbVyv2eRG6A8aMLc1taTiRNwk8pnwXpBDUSjH1dT5fg7yVVZrKkvm31CmigAMdVDg7sgxJmAUNp';

/**
 * A graceful stop lets the leader's work in flight finish while the lease is still held (a payout
 * pass records its result), and that work publishes what it did: `payment-sent` of the batch the
 * wallet just accepted. The notifier was stopped first (parts stop in reverse order, and it was
 * started after the leader), and it asked "is there a leader term?", which is gone as soon as the
 * stop begins: the last payments of every restart were never told, though no other process could
 * tell them (the lease is still held, so no one else sends).
 */
describe('notifications of the leader work that ends while the node stops', () => {
  let redis: TestRedis;
  let hook: Server;
  const received: string[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString());
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    hook?.closeAllConnections();
    await new Promise<void>((resolve) => (hook ? hook.close(() => resolve()) : resolve()));
    await redis?.stop();
  });

  it('sends the payment-sent the last payout pass publishes during the stop', async () => {
    const { port } = hook.address() as AddressInfo;
    const config = parseConfig({
      roles: ['leader'],
      redis: { url: redis.url },
      // Nothing listens there: the leader's daemon polls just fail.
      daemon: { port: 9, timeoutMs: 200, retries: 0 },
      wallet: { port: 9, timeoutMs: 200 },
      pool: { address: POOL_ADDRESS },
      control: { enabled: false },
      notifications: { webhooks: [{ url: `http://127.0.0.1:${port}/hook`, events: ['payment-sent'] }] },
    });
    const node = await PoolNode.start(config, { logger: createLogger({ level: 'silent' }), env: {} });
    const leader = node.leader!;
    const loop = await until(() => leader.loop() ?? undefined, 10_000, 'the lease');
    // The pass that was running when the stop began ends now, inside the term's stop.
    const stopLoop = loop.stop.bind(loop);
    loop.stop = async () => {
      node.events.publish('payment-sent', {
        batchId: 'last-batch',
        transactionHash: 'cd'.repeat(32),
        recipients: 2,
        amountAtomic: 5_000_000n,
        feeAtomic: 10_000n,
        timestampMs: Date.now(),
      });
      await stopLoop();
    };
    await node.stop();
    expect(received.map((body) => JSON.parse(body).data.batchId)).toEqual(['last-batch']);
  }, 30_000);
});
