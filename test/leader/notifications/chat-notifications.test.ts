import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { notificationConfigSchema } from '../../../src/config/notifications-schema.js';
import type { NotificationError } from '../../../src/leader/notifications/notification-errors.js';
import { notificationEventsOf } from '../../../src/leader/notifications/notification-events.js';
import {
  createWebhookNotifier,
  type WebhookNotifier,
  type WebhookNotifierModules,
} from '../../../src/leader/notifications/webhook-notifier.js';
import { createLogger } from '../../../src/log/logger.js';
import { createPoolEventBus, type PoolEventBus } from '../../../src/pool/events.js';
import { captureLogs } from '../../helpers/log-capture.js';

interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly json: Record<string, unknown>;
  readonly atMs: number;
}

/** A chat service stand-in on 127.0.0.1 answering each request with the next scripted reply (the last repeats). */
async function chatService(replies: Reply[]): Promise<{
  base: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        json: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
        atMs: Date.now(),
      });
      const reply = replies[Math.min(received.length - 1, replies.length - 1)]!;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const TOKEN = '123456789:AAH-secret_Token-value';
const ENV = { TELEGRAM_BOT_TOKEN: TOKEN };
const FAST = { timeoutMs: 1_000, maxRetries: 3, initialBackoffMs: 20, maxBackoffMs: 200 };

const HASH = 'ab'.repeat(32);
const FOUND = {
  height: 812_345,
  hash: HASH,
  finderAddress: `fire${'A'.repeat(94)}`,
  solo: false,
  timestampMs: 1,
};

function paymentSent(n: number) {
  return {
    batchId: `b-${n}`,
    transactionHash: `${n}`.padStart(64, 'c'),
    recipients: 3,
    amountAtomic: 123_456_789n,
    feeAtomic: 80_000n,
    timestampMs: 1_700_000_000_000 + n,
  };
}

describe('chat notifications (Discord, Telegram)', () => {
  let notifier: WebhookNotifier | undefined;
  let bus: PoolEventBus;
  const services: Array<{ close(): Promise<void> }> = [];

  afterEach(async () => {
    await notifier?.close();
    notifier = undefined;
    for (const service of services.splice(0)) await service.close();
  });

  async function service(replies: Reply[]) {
    const started = await chatService(replies);
    services.push(started);
    return started;
  }

  function start(section: unknown, modules: Partial<WebhookNotifierModules> = {}): WebhookNotifier {
    bus = createPoolEventBus((error) => {
      throw error;
    });
    const config = notificationConfigSchema.parse(section);
    notifier = createWebhookNotifier(
      {
        ...config,
        explorer: { block: 'https://explorer.example/block/{hash}', transaction: null, address: null },
      },
      {
        events: notificationEventsOf(bus),
        logger: createLogger({ level: 'silent' }),
        env: ENV,
        ...modules,
      },
    );
    return notifier;
  }

  it('posts Discord execute-webhook JSON: headline as content, one embed with fields, mentions off', async () => {
    const discord = await service([{ status: 204 }]);
    start({ ...FAST, discord: [{ url: `${discord.base}/api/webhooks/1/tok`, debounceMs: 0 }] });
    bus.publish('block-found', FOUND);
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    const [request] = discord.received;
    expect(request!.path).toBe('/api/webhooks/1/tok');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.json).toEqual({
      content: 'Block 812345 found (pool round)',
      embeds: [
        {
          title: 'Block found',
          fields: [
            { name: 'Height', value: '812345', inline: true },
            { name: 'Round', value: 'pool', inline: true },
            {
              name: 'Hash',
              value: `[\`abababab…abababab\`](https://explorer.example/block/${HASH})`,
              inline: false,
            },
          ],
          timestamp: '1970-01-01T00:00:00.001Z',
          color: 0x2e_cc_71,
        },
      ],
      allowed_mentions: { parse: [] },
    });
    // No finder address in a chat message.
    expect(JSON.stringify(request!.json)).not.toContain('fire');
  });

  it('posts Telegram sendMessage with the token in the path only, HTML-escaped, and never logs it', async () => {
    const telegram = await service([
      { status: 500, body: { ok: false, description: `Internal: bot${TOKEN} is busy` } },
      { status: 200, body: { ok: true } },
    ]);
    const logs = captureLogs();
    start(
      {
        ...FAST,
        telegram: [
          { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '-100123', apiBaseUrl: telegram.base, debounceMs: 0 },
        ],
      },
      { logger: logs.logger },
    );
    const publish = bus.publish as (name: string, payload: unknown) => void;
    publish('payment-failed', {
      batchId: 'b-<9>',
      recipients: 2,
      amountAtomic: 5n,
      reason: 'wallet said <b>no</b> & "never"',
      timestampMs: 1,
    });
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
    expect(telegram.received.map((r) => r.path)).toEqual([
      `/bot${TOKEN}/sendMessage`,
      `/bot${TOKEN}/sendMessage`,
    ]);
    const body = telegram.received[1]!.json;
    expect(body).toMatchObject({ chat_id: '-100123', parse_mode: 'HTML', disable_web_page_preview: true });
    expect(body['text']).toBe(
      [
        '<b>Payment of 0.0000005 XFG to 2 miners failed; balances restored</b>',
        '<b>Amount</b>: 0.0000005 XFG',
        '<b>Recipients</b>: 2',
        '<b>Batch</b>: <code>b-&lt;9&gt;</code>',
        '<b>Reason</b>: wallet said &lt;b&gt;no&lt;/b&gt; &amp; &quot;never&quot;',
      ].join('\n'),
    );
    const retry = logs.records.find((r) => r['msg'] === 'webhook failed; will retry');
    expect(retry).toMatchObject({
      telegram: 0,
      origin: telegram.base,
      detail: 'HTTP 500: Internal: bot<secret> is busy',
    });
    expect(JSON.stringify(logs.records)).not.toContain(TOKEN);
    expect(JSON.stringify(logs.records)).not.toContain('AAH-secret');
  });

  it('tells a block the daemon refused to Discord and Telegram by default: the reason in the headline, red, the likely cause as a field', async () => {
    const discord = await service([{ status: 204 }]);
    const telegram = await service([{ status: 200, body: { ok: true } }]);
    start({
      ...FAST,
      discord: [{ url: `${discord.base}/d`, debounceMs: 0 }],
      telegram: [
        { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '1', apiBaseUrl: telegram.base, debounceMs: 0 },
      ],
    });
    bus.publish('block-refused', {
      ...FOUND,
      reason: 'pow-disagreement',
      likelyCause: 'the daemon most likely computes a different cn/upx2 <rebuild it at -O2>',
    });
    await expect.poll(() => notifier!.metrics().delivered).toBe(2);
    expect(discord.received[0]!.json).toMatchObject({
      content: 'Block 812345 refused by the daemon (pow-disagreement)',
      embeds: [
        {
          title: 'Block refused by the daemon',
          color: 0xe7_4c_3c,
          fields: [
            { name: 'Height', value: '812345', inline: true },
            { name: 'Round', value: 'pool', inline: true },
            { name: 'Reason', value: 'pow-disagreement', inline: true },
            expect.objectContaining({ name: 'Likely cause', value: expect.stringContaining('cn/upx2') }),
            expect.objectContaining({ name: 'Hash' }),
          ],
        },
      ],
    });
    const lines = String(telegram.received[0]!.json['text']).split('\n');
    expect(lines.slice(0, 5)).toEqual([
      '<b>Block 812345 refused by the daemon (pow-disagreement)</b>',
      '<b>Height</b>: 812345',
      '<b>Round</b>: pool',
      '<b>Reason</b>: pow-disagreement',
      '<b>Likely cause</b>: the daemon most likely computes a different cn/upx2 &lt;rebuild it at -O2&gt;',
    ]);
    // No finder address in a chat message.
    expect(JSON.stringify([...discord.received, ...telegram.received].map((r) => r.json))).not.toContain(
      FOUND.finderAddress,
    );
  });

  it('sends each target only the events it switched on', async () => {
    const discord = await service([{ status: 204 }]);
    const telegram = await service([{ status: 200, body: { ok: true } }]);
    start({
      ...FAST,
      discord: [{ url: `${discord.base}/d`, events: ['block-found'], debounceMs: 0 }],
      telegram: [
        {
          botTokenEnv: 'TELEGRAM_BOT_TOKEN',
          chatId: '@pool_news',
          apiBaseUrl: telegram.base,
          events: ['payment-sent', 'block-orphaned'],
          debounceMs: 0,
        },
      ],
    });
    bus.publish('block-found', FOUND);
    bus.publish('payment-sent', paymentSent(1));
    bus.publish('block-confirmed', { height: 1, hash: HASH, rewardAtomic: 1n });
    await expect.poll(() => notifier!.metrics().delivered).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(discord.received.map((r) => (r.json['embeds'] as Array<{ title: string }>)[0]!.title)).toEqual([
      'Block found',
    ]);
    expect(telegram.received.map((r) => r.json['text'])).toEqual([
      expect.stringMatching(/^<b>Paid 12\.3456789 XFG to 3 miners<\/b>/),
    ]);
    expect(telegram.received[0]!.json['chat_id']).toBe('@pool_news');
  });

  it('debounces a burst of one event into one message, per event and per target', async () => {
    const discord = await service([{ status: 204 }]);
    const telegram = await service([{ status: 200, body: { ok: true } }]);
    start({
      ...FAST,
      discord: [{ url: `${discord.base}/d`, debounceMs: 300 }],
      telegram: [
        { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '1', apiBaseUrl: telegram.base, debounceMs: 300 },
      ],
    });
    for (const n of [1, 2, 3]) bus.publish('payment-sent', paymentSent(n));
    bus.publish('block-found', FOUND);
    expect(notifier!.metrics()).toMatchObject({ debouncing: 8, queued: 0 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(discord.received).toHaveLength(0); // still inside the window
    await expect.poll(() => notifier!.metrics().delivered).toBe(4);
    expect(notifier!.metrics().debouncing).toBe(0);

    const contents = discord.received.map((r) => r.json['content']).sort();
    expect(contents).toEqual([
      '3 payments sent: 37.0370367 XFG to 9 miners',
      'Block 812345 found (pool round)',
    ]);
    const burst = discord.received.find((r) => String(r.json['content']).startsWith('3 payments'))!;
    const [embed] = burst.json['embeds'] as Array<{ title: string; fields: Array<{ name: string }> }>;
    expect(embed!.title).toBe('3 payments sent');
    expect(embed!.fields.map((f) => f.name)).toEqual([
      'Total',
      'Network fees',
      '12.3456789 XFG to 3 miners',
      '12.3456789 XFG to 3 miners',
      '12.3456789 XFG to 3 miners',
    ]);
    const texts = telegram.received.map((r) => String(r.json['text']));
    expect(
      texts.filter((t) => t.startsWith('<b>3 payments sent: 37.0370367 XFG to 9 miners</b>')),
    ).toHaveLength(1);

    // The window closed: the next event opens a new one.
    bus.publish('payment-sent', paymentSent(4));
    await expect.poll(() => notifier!.metrics().delivered).toBe(6);
    expect(discord.received.at(-1)!.json['content']).toBe('Paid 12.3456789 XFG to 3 miners');
  });

  it('sends worker-offline only to chat targets that list it, a burst as one summary', async () => {
    const byDefault = await service([{ status: 204 }]);
    const discord = await service([{ status: 204 }]);
    const telegram = await service([{ status: 200, body: { ok: true } }]);
    const address = `fire${'B'.repeat(94)}`;
    start({
      ...FAST,
      discord: [
        { url: `${byDefault.base}/d`, debounceMs: 0 },
        { url: `${discord.base}/d`, events: ['worker-offline'], debounceMs: 300 },
      ],
      telegram: [
        { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '1', apiBaseUrl: telegram.base, debounceMs: 300 },
        {
          botTokenEnv: 'TELEGRAM_BOT_TOKEN',
          chatId: '2',
          apiBaseUrl: telegram.base,
          events: ['block-found', 'worker-offline'],
          debounceMs: 300,
        },
      ],
    });
    const lastShareMs = Date.UTC(2026, 10, 26, 14, 5);
    for (const worker of ['rig1', 'rig2', 'rig3']) {
      bus.publish('worker-offline', { address, worker, lastShareMs, offlineAfterMs: 600_000 });
    }
    expect(notifier!.metrics().debouncing).toBe(6);
    await expect.poll(() => notifier!.metrics().delivered).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(byDefault.received).toEqual([]);
    expect(discord.received.map((r) => r.json['content'])).toEqual(['3 workers offline: rig1, rig2, rig3']);
    const [embed] = discord.received[0]!.json['embeds'] as Array<{
      fields: Array<{ name: string; value: string }>;
    }>;
    expect(embed!.fields[0]).toEqual({
      name: 'rig1',
      value: 'fireBBBB…BBBB, last share 14:05 UTC',
      inline: false,
    });
    expect(telegram.received.map((r) => r.json['chat_id'])).toEqual(['2']);
    expect(String(telegram.received[0]!.json['text'])).toMatch(
      /^<b>3 workers offline: rig1, rig2, rig3<\/b>\n/,
    );
    expect(JSON.stringify([...discord.received, ...telegram.received].map((r) => r.json))).not.toContain(
      address,
    );
  });

  it('sends an open debounce window at shutdown instead of dropping it', async () => {
    const discord = await service([{ status: 204 }]);
    // Default debounceMs (10 s): the block found just before a restart waits in its window.
    start({ ...FAST, discord: [{ url: `${discord.base}/d` }] });
    bus.publish('block-found', FOUND);
    bus.publish('block-found', { ...FOUND, height: FOUND.height + 1 });
    await notifier!.close();
    expect(discord.received.map((r) => r.json['content'])).toEqual([
      '2 blocks found: heights 812345 and 812346',
    ]);
    expect(notifier!.metrics()).toMatchObject({ delivered: 1, debouncing: 0 });
  });

  it("waits for Discord's retry_after on 429, and holds that webhook's other messages meanwhile", async () => {
    const discord = await service([
      { status: 429, body: { message: 'You are being rate limited.', retry_after: 0.4, global: false } },
      { status: 204 },
    ]);
    start({
      ...FAST,
      concurrency: 1,
      discord: [{ url: `${discord.base}/d`, events: ['block-orphaned'], debounceMs: 0 }],
    });
    bus.publish('block-orphaned', { height: 1, hash: HASH });
    bus.publish('block-orphaned', { height: 2, hash: HASH });
    await expect.poll(() => notifier!.metrics().delivered, { timeout: 3_000 }).toBe(2);
    expect(discord.received).toHaveLength(3);
    // initialBackoffMs is 20 ms: the 400 ms come from retry_after, and apply to the second message too.
    expect(discord.received[1]!.atMs - discord.received[0]!.atMs).toBeGreaterThanOrEqual(380);
    expect(notifier!.metrics()).toMatchObject({ retried: 1, givenUp: 0 });
  });

  it('waits for the Retry-After of a 503 (a receiver down for maintenance says for how long)', async () => {
    const hook = await service([{ status: 503, headers: { 'retry-after': '1' } }, { status: 204 }]);
    // Backoff alone (20 ms, then given up after one retry) would lose the message.
    start({
      ...FAST,
      maxRetries: 1,
      discord: [{ url: `${hook.base}/d`, events: ['block-orphaned'], debounceMs: 0 }],
    });
    bus.publish('block-orphaned', { height: 1, hash: HASH });
    await expect.poll(() => hook.received.length, { timeout: 3_000 }).toBe(2);
    expect(hook.received[1]!.atMs - hook.received[0]!.atMs).toBeGreaterThanOrEqual(980);
    await expect.poll(() => notifier!.metrics().delivered).toBe(1);
  });

  it("waits for Telegram's parameters.retry_after on 429", async () => {
    const telegram = await service([
      {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 1',
          parameters: { retry_after: 1 },
        },
      },
      { status: 200, body: { ok: true } },
    ]);
    start({
      ...FAST,
      telegram: [
        { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '1', apiBaseUrl: telegram.base, debounceMs: 0 },
      ],
    });
    bus.publish('block-orphaned', { height: 1, hash: HASH });
    await expect.poll(() => notifier!.metrics().delivered, { timeout: 3_000 }).toBe(1);
    expect(telegram.received[1]!.atMs - telegram.received[0]!.atMs).toBeGreaterThanOrEqual(980);
  });

  it('refuses at creation a missing or malformed bot token and a bad URL, naming the key', () => {
    const events = notificationEventsOf(createPoolEventBus(() => undefined));
    const logger = createLogger({ level: 'silent' });
    const make = (section: unknown, env: Record<string, string>) => {
      try {
        createWebhookNotifier(notificationConfigSchema.parse(section), { events, logger, env });
        return 'created';
      } catch (error) {
        const { code, message } = error as NotificationError;
        return `${code} ${message}`;
      }
    };
    const telegram = { botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '1' };
    expect(make({ telegram: [telegram] }, {})).toBe(
      'MISSING_SECRET notifications.telegram.0.botTokenEnv: environment variable TELEGRAM_BOT_TOKEN is not set',
    );
    const malformed = make({ telegram: [telegram, telegram] }, { TELEGRAM_BOT_TOKEN: 'not/a token' });
    expect(malformed).toMatch(/^INVALID_BOT_TOKEN notifications\.telegram\.0\.botTokenEnv: /);
    expect(malformed).not.toContain('not/a token');
    expect(make({ telegram: [telegram] }, ENV)).toBe('created');
    expect(make({ discord: [{ url: 'https://discord.com/api/webhooks/1/t' }] }, {})).toBe('created');
  });
});
