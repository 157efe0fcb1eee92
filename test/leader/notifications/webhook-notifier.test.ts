import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { notificationConfigSchema } from '../../../src/config/notifications-schema.js';
import type { NotificationError } from '../../../src/leader/notifications/notification-errors.js';
import { notificationEventsOf } from '../../../src/leader/notifications/notification-events.js';
import {
  createWebhookNotifier,
  type WebhookNotifier,
  type WebhookNotifierOptions,
} from '../../../src/leader/notifications/webhook-notifier.js';
import {
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
} from '../../../src/leader/notifications/webhook-signature.js';
import { createLogger, type Logger } from '../../../src/log/logger.js';
import { createPoolEventBus, type PoolEventBus } from '../../../src/pool/events.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly atMs: number;
}

/** A receiver on 127.0.0.1 answering each request with the next scripted status (the last repeats). */
async function receiver(
  statuses: number[],
  hold?: Promise<void>,
): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), atMs: Date.now() });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      void (hold ?? Promise.resolve()).then(() => res.writeHead(status).end('ok'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/pool?token=abc`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver (see receiver) that answers nothing until `release` is called. */
async function heldReceiver(statuses: number[]) {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { hook: await receiver(statuses, hold), release };
}

function logCapture(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: createLogger({ level: 'debug' }, stream),
    lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const FAST: Omit<WebhookNotifierOptions, 'webhooks'> = {
  timeoutMs: 1_000,
  maxRetries: 3,
  initialBackoffMs: 20,
  maxBackoffMs: 200,
  maxQueueSize: 100,
  concurrency: 2,
};

const BLOCK_FOUND = {
  height: 812_345,
  hash: 'aa'.repeat(32),
  finderAddress: `fire${'A'.repeat(94)}`,
  solo: false,
  timestampMs: 1_700_000_000_000,
};

describe('webhook notifier', () => {
  let notifier: WebhookNotifier | undefined;
  let closeReceiver: (() => Promise<void>) | undefined;
  let bus: PoolEventBus;

  afterEach(async () => {
    await notifier?.close();
    await closeReceiver?.();
    notifier = undefined;
    closeReceiver = undefined;
  });

  function start(
    options: WebhookNotifierOptions,
    extra: { logger?: Logger; fetch?: typeof fetch; isActive?: () => boolean; clock?: () => number } = {},
  ) {
    bus = createPoolEventBus((error) => {
      throw error;
    });
    notifier = createWebhookNotifier(options, {
      events: notificationEventsOf(bus),
      logger: extra.logger ?? createLogger({ level: 'silent' }),
      env: { POOL_HOOK_SECRET: 's3cret' },
      ...(extra.fetch ? { fetch: extra.fetch } : {}),
      ...(extra.isActive ? { isActive: extra.isActive } : {}),
      ...(extra.clock ? { clock: extra.clock } : {}),
    });
    return notifier;
  }

  it('POSTs a signed JSON body with only whitelisted fields', async () => {
    const hook = await receiver([200]);
    closeReceiver = hook.close;
    start({
      ...FAST,
      webhooks: [{ url: hook.url, events: ['block-found', 'payment-sent'], secretEnv: 'POOL_HOOK_SECRET' }],
    });
    // An IP smuggled into a payload never reaches the webhook: fields are copied by name.
    bus.publish('block-found', { ...BLOCK_FOUND, ip: '203.0.113.7' } as typeof BLOCK_FOUND);
    bus.publish('payment-sent', {
      batchId: 'b-1',
      transactionHash: 'cd'.repeat(32),
      recipients: 3,
      amountAtomic: 123_456_789n,
      feeAtomic: 80_000n,
      timestampMs: 1_700_000_000_500,
    });
    bus.publish('block-orphaned', { height: 1, hash: 'ee'.repeat(32) }); // not subscribed
    await expect.poll(() => notifier!.metrics().delivered).toBe(2);

    const byEvent = new Map(hook.received.map((r) => [r.headers[WEBHOOK_HEADERS.event], r]));
    expect([...byEvent.keys()].sort()).toEqual(['block-found', 'payment-sent']);
    for (const request of hook.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(
        verifyWebhookSignature({
          secret: 's3cret',
          body: request.body,
          timestamp: request.headers[WEBHOOK_HEADERS.timestamp] as string,
          signature: request.headers[WEBHOOK_HEADERS.signature] as string,
          nowMs: Date.now(),
        }),
      ).toBe(true);
      expect(
        verifyWebhookSignature({
          secret: 'wrong',
          body: request.body,
          timestamp: request.headers[WEBHOOK_HEADERS.timestamp] as string,
          signature: request.headers[WEBHOOK_HEADERS.signature] as string,
          nowMs: Date.now(),
        }),
      ).toBe(false);
      expect(request.body).not.toMatch(/\d+\.\d+\.\d+\.\d+"/);
    }
    const found = JSON.parse(byEvent.get('block-found')!.body);
    expect(found).toMatchObject({ event: 'block-found', data: { height: 812_345, solo: false } });
    expect(found.id).toBe(byEvent.get('block-found')!.headers[WEBHOOK_HEADERS.delivery]);
    expect(found.data).not.toHaveProperty('ip');
    expect(found.data).not.toHaveProperty('finderAddress');
    const paid = JSON.parse(byEvent.get('payment-sent')!.body);
    expect(paid.data).toEqual({
      batchId: 'b-1',
      transactionHash: 'cd'.repeat(32),
      recipients: 3,
      amountAtomic: '123456789',
      amount: '12.3456789',
      feeAtomic: '80000',
      fee: '0.0080000',
      timestampMs: 1_700_000_000_500,
    });
  });

  it('retries on 500 with a growing backoff, then succeeds, keeping the delivery id', async () => {
    const hook = await receiver([500, 503, 200]);
    closeReceiver = hook.close;
    start({ ...FAST, webhooks: [{ url: hook.url, events: ['block-confirmed'] }] });
    bus.publish('block-confirmed', { height: 5, hash: 'bb'.repeat(32), rewardAtomic: 50_000_000n });
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.headers[WEBHOOK_HEADERS.delivery])).size).toBe(1);
    expect(hook.received[0]!.headers[WEBHOOK_HEADERS.signature]).toBeUndefined();
    const gaps = [
      hook.received[1]!.atMs - hook.received[0]!.atMs,
      hook.received[2]!.atMs - hook.received[1]!.atMs,
    ];
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[1]).toBeGreaterThanOrEqual(38);
    expect(notifier!.metrics()).toMatchObject({ delivered: 1, retried: 2, givenUp: 0, queued: 0 });
    expect(JSON.parse(hook.received[2]!.body).data).toEqual({
      height: 5,
      hash: 'bb'.repeat(32),
      rewardAtomic: '50000000',
      reward: '5.0000000',
    });
  });

  it('gives up after maxRetries and logs it (without the URL path)', async () => {
    const hook = await receiver([500]);
    closeReceiver = hook.close;
    const { logger, lines } = logCapture();
    start({ ...FAST, maxRetries: 2, webhooks: [{ url: hook.url, events: ['block-orphaned'] }] }, { logger });
    bus.publish('block-orphaned', { height: 9, hash: 'cc'.repeat(32) });
    await expect.poll(() => notifier!.metrics().givenUp).toBe(1);
    expect(hook.received).toHaveLength(3);
    const gaveUp = lines().find((l) => l['msg'] === 'webhook failed; giving up after the last retry');
    expect(gaveUp).toMatchObject({
      level: 50,
      webhook: 0,
      attempt: 3,
      detail: 'HTTP 500',
      event: 'block-orphaned',
    });
    expect(JSON.stringify(lines())).not.toContain('token=abc');
  });

  it('keeps the URL path and query out of the log when the receiver echoes them in its error', async () => {
    // Frameworks answer an unknown route with its URL (Fastify: "Route POST:/x?token=... not found").
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `Route ${req.method}:${req.url} not found` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    closeReceiver = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    const { logger, lines } = logCapture();
    const url = `http://127.0.0.1:${port}/hooks/pool-7f3a9c?token=abc`;
    start({ ...FAST, webhooks: [{ url, events: ['block-orphaned'] }] }, { logger });
    bus.publish('block-orphaned', { height: 9, hash: 'cc'.repeat(32) });
    await expect.poll(() => notifier!.metrics().givenUp).toBe(1);
    const refused = lines().find((l) => l['msg'] === 'webhook refused the notification; not retrying');
    expect(refused).toMatchObject({ detail: expect.stringContaining('HTTP 404: Route POST:') });
    expect(JSON.stringify(lines())).not.toContain('token=abc');
    expect(JSON.stringify(lines())).not.toContain('pool-7f3a9c');
  });

  it('does not retry a 4xx refusal, but retries a timeout', async () => {
    const refusing = await receiver([404]);
    // Long enough for two timed-out attempts; the 404 has a whole timeout to arrive even on a
    // loaded machine (a 404 answered after the timeout would be retried as a timeout).
    const slowRelease = new Promise<void>((resolve) => setTimeout(resolve, 2_000));
    const slow = await receiver([200], slowRelease);
    closeReceiver = async () => {
      await refusing.close();
      await slow.close();
    };
    start({
      ...FAST,
      timeoutMs: 500,
      maxRetries: 1,
      webhooks: [
        { url: refusing.url, events: ['block-orphaned'] },
        { url: slow.url, events: ['block-orphaned'] },
      ],
    });
    bus.publish('block-orphaned', { height: 9, hash: 'cc'.repeat(32) });
    await expect.poll(() => notifier!.metrics().givenUp, { timeout: 5_000 }).toBe(2);
    expect(refusing.received).toHaveLength(1);
    expect(slow.received).toHaveLength(2);
  });

  it("a receiver that never answers holds one request slot, never the other targets' turn", async () => {
    // Never answers: every attempt to it runs into timeoutMs.
    const dead = await receiver([200], new Promise<void>(() => undefined));
    const live = await receiver([200]);
    closeReceiver = async () => {
      await dead.close();
      await live.close();
    };
    start({
      ...FAST,
      timeoutMs: 3_000,
      maxRetries: 0,
      webhooks: [
        { url: dead.url, events: ['block-orphaned'] },
        { url: live.url, events: ['block-orphaned'] },
      ],
    });
    const started = Date.now();
    for (const height of [1, 2, 3, 4]) bus.publish('block-orphaned', { height, hash: '01'.repeat(32) });
    await expect.poll(() => live.received.length, { timeout: 10_000 }).toBe(4);
    // Before: the dead receiver's requests took both slots, and each live one waited a timeout.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(live.received.map((r) => JSON.parse(r.body).data.height)).toEqual([1, 2, 3, 4]);
    expect(dead.received).toHaveLength(1);
  });

  it('drops the oldest waiting notification when the queue is full, and counts it', async () => {
    const { hook, release } = await heldReceiver([200]);
    closeReceiver = hook.close;
    const { logger, lines } = logCapture();
    start(
      { ...FAST, concurrency: 1, maxQueueSize: 2, webhooks: [{ url: hook.url, events: ['block-orphaned'] }] },
      { logger },
    );
    bus.publish('block-orphaned', { height: 1, hash: '01'.repeat(32) });
    await expect.poll(() => notifier!.metrics().inFlight).toBe(1);
    for (const height of [2, 3, 4, 5]) bus.publish('block-orphaned', { height, hash: '01'.repeat(32) });
    expect(notifier!.metrics()).toMatchObject({ queued: 2, dropped: 2 });
    expect(
      lines().filter((l) => l['msg'] === 'webhook queue full: dropped the oldest notification'),
    ).toHaveLength(2);
    release();
    await expect.poll(() => notifier!.metrics().delivered).toBe(3);
    expect(hook.received.map((r) => JSON.parse(r.body).data.height)).toEqual([1, 4, 5]);
  });

  it('logs the first drop at once, then one summary per minute by target and event, however many drop', async () => {
    const { hook, release } = await heldReceiver([200]);
    closeReceiver = hook.close;
    const { logger, lines } = logCapture();
    let nowMs = 1_700_000_000_000;
    start(
      {
        ...FAST,
        concurrency: 1,
        maxQueueSize: 2,
        webhooks: [{ url: hook.url, events: ['block-orphaned', 'block-found'] }],
      },
      { logger, clock: () => nowMs },
    );
    bus.publish('block-orphaned', { height: 1, hash: '01'.repeat(32) });
    await expect.poll(() => notifier!.metrics().inFlight).toBe(1);
    // An outage: a thousand events while the receiver holds the one request slot.
    for (let height = 2; height < 1_002; height++) {
      if (height % 2 === 0) bus.publish('block-orphaned', { height, hash: '01'.repeat(32) });
      else bus.publish('block-found', { ...BLOCK_FOUND, height });
    }
    const warnings = () => lines().filter((l) => typeof l['level'] === 'number' && l['level'] >= 40);
    const dropLines = () => warnings().filter((l) => String(l['msg']).startsWith('webhook queue full'));
    expect(notifier!.metrics().dropped).toBe(998);
    expect(dropLines()).toHaveLength(1);
    expect(dropLines()[0]).toMatchObject({ webhook: 0, event: 'block-orphaned' });

    nowMs += 60_000; // a minute later, still dropping: one line sums up the minute
    bus.publish('block-found', { ...BLOCK_FOUND, height: 1_002 });
    expect(notifier!.metrics().dropped).toBe(999);
    expect(dropLines()).toHaveLength(2);
    expect(dropLines()[1]).toMatchObject({
      level: 40,
      dropped: 998,
      droppedTotal: 999,
      byTarget: { 'webhook.0': { 'block-orphaned': 499, 'block-found': 499 } },
    });
    expect(JSON.stringify(lines())).not.toContain('token=abc');
    release();
    await expect.poll(() => notifier!.metrics().delivered).toBe(3);
  });

  it('an attempt that fails after close() is logged as not delivered, not as a retry', async () => {
    const { hook, release } = await heldReceiver([500]);
    closeReceiver = hook.close;
    const { logger, lines } = logCapture();
    start(
      { ...FAST, concurrency: 1, maxQueueSize: 1, webhooks: [{ url: hook.url, events: ['block-orphaned'] }] },
      { logger },
    );
    bus.publish('block-orphaned', { height: 1, hash: '01'.repeat(32) });
    await expect.poll(() => notifier!.metrics().inFlight).toBe(1);
    bus.publish('block-orphaned', { height: 2, hash: '02'.repeat(32) }); // waits: one slot
    const closed = notifier!.close();
    release(); // the request in flight at shutdown fails (HTTP 500)
    await closed;
    const records = lines();
    expect(records.filter((l) => l['msg'] === 'webhook failed; will retry')).toEqual([]);
    const notDelivered = records.filter((l) => l['msg'] === 'webhook failed at shutdown; not delivered');
    expect(notDelivered).toHaveLength(1);
    expect(notDelivered[0]).toMatchObject({
      level: 40,
      webhook: 0,
      event: 'block-orphaned',
      detail: 'HTTP 500',
    });
    // Both are lost: the failed one and the one still waiting; nothing was dropped for it.
    expect(records.filter((l) => String(l['msg']).startsWith('webhook queue full'))).toEqual([]);
    expect(records.find((l) => l['msg'] === 'webhook notifications not delivered at shutdown')).toMatchObject(
      {
        level: 40,
        undelivered: 2,
      },
    );
    expect(notifier!.metrics()).toMatchObject({ retried: 0, dropped: 0, delivered: 0 });
  });

  it('a dead receiver logs its first retry and give-up at once, then one summary each per minute', async () => {
    const { logger, lines } = logCapture();
    let offsetMs = 0; // the notifier's clock runs with real time, plus the minutes a test skips
    const refused = (() => Promise.reject(new TypeError('connect ECONNREFUSED'))) as typeof fetch;
    start(
      {
        ...FAST,
        maxRetries: 2,
        webhooks: [{ url: 'http://127.0.0.1:9/x?token=abc', events: ['block-orphaned'] }],
      },
      { logger, fetch: refused, clock: () => Date.now() + offsetMs },
    );
    for (let height = 1; height <= 20; height++)
      bus.publish('block-orphaned', { height, hash: '01'.repeat(32) });
    await expect.poll(() => notifier!.metrics().givenUp, { timeout: 10_000 }).toBe(20);
    const failed = (level: number) =>
      lines().filter((l) => l['level'] === level && String(l['msg']).startsWith('webhook failed;'));
    expect(notifier!.metrics().retried).toBe(40);
    expect(failed(40)).toHaveLength(1); // the first retry, with its detail
    expect(failed(40)[0]).toMatchObject({
      msg: 'webhook failed; will retry',
      detail: 'connect ECONNREFUSED',
    });
    expect(failed(50)).toHaveLength(1); // the first give-up
    expect(failed(50)[0]).toMatchObject({ msg: 'webhook failed; giving up after the last retry' });

    offsetMs += 60_000; // a minute later the receiver is still dead
    bus.publish('block-orphaned', { height: 21, hash: '01'.repeat(32) });
    await expect.poll(() => notifier!.metrics().givenUp, { timeout: 10_000 }).toBe(21);
    expect(failed(40)).toHaveLength(2);
    expect(failed(40)[1]).toMatchObject({
      retried: 40,
      lastDetail: 'connect ECONNREFUSED',
      byTarget: { 'webhook.0': { 'block-orphaned': 40 } },
    });
    expect(failed(50)).toHaveLength(2);
    expect(failed(50)[1]).toMatchObject({ givenUp: 20, byTarget: { 'webhook.0': { 'block-orphaned': 20 } } });
    expect(JSON.stringify(lines())).not.toContain('token=abc');
  });

  it('never blocks or breaks the publisher, even when fetch hangs or throws', async () => {
    let calls = 0;
    const hanging = ((): Promise<Response> => {
      calls += 1;
      if (calls === 1) throw new Error('synchronous explosion');
      return new Promise<Response>(() => undefined);
    }) as typeof fetch;
    start(
      {
        ...FAST,
        timeoutMs: 60_000,
        maxQueueSize: 10,
        webhooks: [{ url: 'http://127.0.0.1:9/x', events: ['block-found'] }],
      },
      { fetch: hanging },
    );
    // CPU time, not wall time: a loaded machine stretches the loop but not the work in it.
    const started = process.cpuUsage();
    for (let i = 0; i < 1_000; i++) bus.publish('block-found', { ...BLOCK_FOUND, height: i });
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
    expect(calls).toBe(0); // nothing is sent inside publish()
    await expect.poll(() => calls).toBeGreaterThanOrEqual(2);
    // One target: one request at a time, however many slots there are.
    await expect.poll(() => notifier!.metrics().inFlight).toBe(1);
    expect(notifier!.metrics()).toMatchObject({ queued: 9, dropped: 990, delivered: 0 });
    // close() must not wait for a request that never ends beyond its own timeout: abandon it here.
    notifier = undefined;
  });

  it('sends only while this process is the active sender (one process of many)', async () => {
    const hook = await receiver([200]);
    closeReceiver = hook.close;
    let leading = false;
    start(
      { ...FAST, webhooks: [{ url: hook.url, events: ['block-orphaned'] }] },
      { isActive: () => leading },
    );
    bus.publish('block-orphaned', { height: 1, hash: '01'.repeat(32) });
    leading = true;
    bus.publish('block-orphaned', { height: 2, hash: '02'.repeat(32) });
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    expect(hook.received.map((r) => JSON.parse(r.body).data.height)).toEqual([2]);
  });

  it('refuses non-http(s) URLs and missing secrets at creation', () => {
    const events = notificationEventsOf(createPoolEventBus(() => undefined));
    const logger = createLogger({ level: 'silent' });
    const make = (url: string, secretEnv?: string) => {
      try {
        createWebhookNotifier(
          { ...FAST, webhooks: [{ url, events: ['block-found'], ...(secretEnv ? { secretEnv } : {}) }] },
          { events, logger, env: {} },
        );
        return 'created';
      } catch (error) {
        return (error as NotificationError).code;
      }
    };
    expect(make('ftp://127.0.0.1/x')).toBe('INVALID_URL');
    expect(make('file:///etc/passwd')).toBe('INVALID_URL');
    expect(make('http://user:pw@127.0.0.1/x')).toBe('INVALID_URL');
    expect(make('not a url')).toBe('INVALID_URL');
    expect(make('http://127.0.0.1/x', 'UNSET_SECRET')).toBe('MISSING_SECRET');
  });

  it('config schema: http(s) only, defaults filled', () => {
    const parsed = notificationConfigSchema.parse({ webhooks: [{ url: 'https://hooks.example.org/a' }] });
    expect(parsed.webhooks[0]!.events).toEqual([
      'block-found',
      'block-refused',
      'block-confirmed',
      'block-orphaned',
      'block-orphaned-after-credit',
      'block-orphan-settled',
      'block-orphan-restored',
      'block-orphan-restore-undone',
      'block-orphan-back-uncredited',
      'payment-sent',
      'payment-failed',
      'payout-unknown-to-wallet',
      'payout-unknown-to-wallet-resolved',
      'payout-unmined',
    ]);
    expect(parsed).toMatchObject({ timeoutMs: 5_000, maxRetries: 5, maxQueueSize: 1_000 });
    for (const url of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'ws://127.0.0.1/',
      'http://u:p@127.0.0.1/',
    ]) {
      expect(notificationConfigSchema.safeParse({ webhooks: [{ url }] }).success).toBe(false);
    }
    expect(
      notificationConfigSchema.safeParse({ webhooks: [{ url: 'http://127.0.0.1/', secretEnv: 'lower' }] })
        .success,
    ).toBe(false);
    expect(notificationConfigSchema.safeParse({ initialBackoffMs: 5_000, maxBackoffMs: 1_000 }).success).toBe(
      false,
    );
    expect(notificationConfigSchema.parse({})).toMatchObject({ webhooks: [] });
  });

  it('delivers payment-failed once the bus publishes it', async () => {
    const hook = await receiver([200]);
    closeReceiver = hook.close;
    start({ ...FAST, webhooks: [{ url: hook.url, events: ['payment-failed'] }] });
    const publish = bus.publish as (name: string, payload: unknown) => void;
    publish('payment-failed', {
      batchId: 'b-9',
      recipients: 2,
      amountAtomic: 5n,
      reason: 'wallet refused: not enough money',
      timestampMs: 1,
    });
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    expect(JSON.parse(hook.received[0]!.body).data).toEqual({
      batchId: 'b-9',
      recipients: 2,
      amountAtomic: '5',
      amount: '0.0000005',
      reason: 'wallet refused: not enough money',
      timestampMs: 1,
    });
  });

  it('sends worker-offline only to a webhook that lists it, with the address and the worker', async () => {
    const hook = await receiver([200, 200]);
    closeReceiver = hook.close;
    const defaults = notificationConfigSchema.parse({ webhooks: [{ url: hook.url }] }).webhooks[0]!;
    expect(defaults.events).not.toContain('worker-offline');
    start({
      ...FAST,
      webhooks: [
        { url: hook.url, events: defaults.events },
        { url: hook.url, events: ['worker-offline'] },
      ],
    });
    bus.publish('worker-offline', {
      address: 'fireAddress',
      worker: 'rig-7',
      lastShareMs: 1_000,
      offlineAfterMs: 600_000,
    });
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0]!.body)).toMatchObject({
      event: 'worker-offline',
      data: { address: 'fireAddress', worker: 'rig-7', lastShareMs: 1_000, offlineAfterSeconds: 600 },
    });
  });
});
