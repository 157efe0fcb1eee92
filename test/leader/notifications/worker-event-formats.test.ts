import { describe, expect, it } from 'vitest';
import type { Burst } from '../../../src/leader/notifications/chat-message.js';
import { discordBody } from '../../../src/leader/notifications/discord-format.js';
import { telegramText } from '../../../src/leader/notifications/telegram-format.js';
import { WORKER_OFFLINE_FORMAT } from '../../../src/leader/notifications/worker-event-formats.js';
import type { PoolEventMap } from '../../../src/pool/events.js';

type Offline = PoolEventMap['worker-offline'];

const ADDRESS = `fireAbCd${'x'.repeat(86)}wxyz`;
/** 14:05:30 UTC: the message says 14:05. */
const LAST_SHARE_MS = Date.UTC(2026, 10, 26, 14, 5, 30);

function offline(worker: string, minutesLater = 0, offlineAfterMs = 600_000): Offline {
  return { address: ADDRESS, worker, lastShareMs: LAST_SHARE_MS + minutesLater * 60_000, offlineAfterMs };
}

function burst(...payloads: Offline[]): Burst<Offline> {
  return { payloads, omitted: 0 };
}

describe('worker-offline format', () => {
  it('webhook data: the address, the worker, the last share and the offline time in seconds', () => {
    const data = WORKER_OFFLINE_FORMAT.data(offline('rig1'), { includeAddresses: false });
    expect(data).toEqual({
      address: ADDRESS,
      worker: 'rig1',
      lastShareMs: LAST_SHARE_MS,
      offlineAfterSeconds: 600,
    });
  });

  it('chat: one worker, its last share in UTC and the offline time, the address shortened', () => {
    const message = WORKER_OFFLINE_FORMAT.chat(burst(offline('rig1')), {});
    expect(message).toEqual({
      title: 'Worker offline',
      headline: 'Worker rig1 offline: no share since 14:05 UTC (10 min)',
      tone: 'bad',
      fields: [
        { name: 'Worker', value: 'rig1', inline: true },
        { name: 'Address', value: 'fireAbCd…wxyz', code: true, inline: true },
        { name: 'Last share', value: '14:05 UTC', inline: true },
      ],
      timestampMs: LAST_SHARE_MS + 600_000,
    });
    expect(JSON.stringify(message)).not.toContain(ADDRESS);
    const hours = WORKER_OFFLINE_FORMAT.chat(burst(offline('rig1', 0, 2 * 3_600_000)), {});
    expect(hours.headline).toBe('Worker rig1 offline: no share since 14:05 UTC (2 h)');
  });

  it('Discord: the worker name escaped for markdown, the address as code, the time of going offline', () => {
    const body = JSON.parse(discordBody(WORKER_OFFLINE_FORMAT.chat(burst(offline('rig_1*')), {}), 0));
    expect(body.content).toBe('Worker rig\\_1\\* offline: no share since 14:05 UTC (10 min)');
    expect(body.embeds[0]).toMatchObject({
      title: 'Worker offline',
      fields: [
        { name: 'Worker', value: 'rig\\_1\\*', inline: true },
        { name: 'Address', value: '`fireAbCd…wxyz`', inline: true },
        { name: 'Last share', value: '14:05 UTC', inline: true },
      ],
      timestamp: new Date(LAST_SHARE_MS + 600_000).toISOString(),
      color: 0xe7_4c_3c,
    });
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it('Telegram: every value HTML-escaped', () => {
    const text = telegramText(WORKER_OFFLINE_FORMAT.chat(burst(offline('<rig>&"1"')), {}));
    expect(text).toBe(
      [
        '<b>Worker &lt;rig&gt;&amp;&quot;1&quot; offline: no share since 14:05 UTC (10 min)</b>',
        '<b>Worker</b>: &lt;rig&gt;&amp;&quot;1&quot;',
        '<b>Address</b>: <code>fireAbCd…wxyz</code>',
        '<b>Last share</b>: 14:05 UTC',
      ].join('\n'),
    );
  });

  it('a burst is one summary: the workers named, a field per worker, the rest counted', () => {
    const three = WORKER_OFFLINE_FORMAT.chat(
      burst(offline('rig1'), offline('rig2', 1), offline('rig3', 2)),
      {},
    );
    expect(three).toMatchObject({
      title: '3 workers offline',
      headline: '3 workers offline: rig1, rig2, rig3',
      tone: 'bad',
      timestampMs: LAST_SHARE_MS + 2 * 60_000 + 600_000,
    });
    expect(three.fields).toEqual([
      { name: 'rig1', value: 'fireAbCd…wxyz, last share 14:05 UTC' },
      { name: 'rig2', value: 'fireAbCd…wxyz, last share 14:06 UTC' },
      { name: 'rig3', value: 'fireAbCd…wxyz, last share 14:07 UTC' },
    ]);
    const many = WORKER_OFFLINE_FORMAT.chat(
      { payloads: Array.from({ length: 12 }, (_, i) => offline(`w${i}`)), omitted: 88 },
      {},
    );
    expect(many.headline).toBe('100 workers offline: w0, w1, w2, w3, w4, w5, w6, w7, w8, w9 and 90 more');
    expect(many.fields).toHaveLength(11);
    expect(many.fields.at(-1)).toEqual({ name: 'More', value: '90 workers not listed' });
    expect(
      telegramText(WORKER_OFFLINE_FORMAT.chat(burst(offline('a<1'), offline('b&2')), {})).split('\n')[0],
    ).toBe('<b>2 workers offline: a&lt;1, b&amp;2</b>');
  });

  it('a worker named in another script reaches Discord, Telegram and webhooks as it is', () => {
    const name = 'Jörg-矿机.1';
    const message = WORKER_OFFLINE_FORMAT.chat(burst(offline(name)), {});
    expect(message.headline).toBe(`Worker ${name} offline: no share since 14:05 UTC (10 min)`);
    const discord = JSON.parse(discordBody(message, 0));
    expect(JSON.stringify(discord)).toContain(name);
    expect(telegramText(message)).toContain(`<b>Worker ${name} offline`);
    expect(WORKER_OFFLINE_FORMAT.data(offline(name), { includeAddresses: false })).toMatchObject({
      worker: name,
    });
  });
});
