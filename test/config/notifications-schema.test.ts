import { describe, expect, it } from 'vitest';
import { type ConfigError, parseConfig } from '../../src/config/load-config.js';
import {
  DEFAULT_NOTIFICATION_EVENTS,
  notificationConfigSchema,
  someTargetLists,
} from '../../src/config/notifications-schema.js';

function issuesOf(notifications: unknown): string[] {
  try {
    parseConfig({ notifications });
  } catch (error) {
    return (error as ConfigError).data['issues'] as string[];
  }
  return [];
}

describe('notifications config: Discord and Telegram', () => {
  it('takes one line per target and fills the rest: all events but worker-offline, a 10 s debounce, the public Bot API', () => {
    const parsed = notificationConfigSchema.parse({
      discord: [{ url: 'https://discord.com/api/webhooks/1/token' }],
      telegram: [{ botTokenEnv: 'TELEGRAM_BOT_TOKEN', chatId: '-100123' }],
    });
    expect(parsed.discord).toEqual([
      {
        url: 'https://discord.com/api/webhooks/1/token',
        events: [...DEFAULT_NOTIFICATION_EVENTS],
        debounceMs: 10_000,
      },
    ]);
    expect(parsed.telegram).toEqual([
      {
        botTokenEnv: 'TELEGRAM_BOT_TOKEN',
        chatId: '-100123',
        events: [...DEFAULT_NOTIFICATION_EVENTS],
        debounceMs: 10_000,
        apiBaseUrl: 'https://api.telegram.org',
      },
    ]);
    expect(DEFAULT_NOTIFICATION_EVENTS).not.toContain('worker-offline');
    // Left out, they stay out (the section's defaults are what they were).
    expect(notificationConfigSchema.parse({})).not.toHaveProperty('discord');
    expect(notificationConfigSchema.parse({}).webhooks).toEqual([]);
  });

  it('names the bad key of each mistake', () => {
    const issues = issuesOf({
      discord: [
        { url: 'ftp://discord.com/x', webhook: 'x' },
        { url: 'https://d.example/', events: ['block-lost'] },
      ],
      telegram: [
        { botTokenEnv: 'telegram token', chatId: -100123 },
        { chatId: 'my group', debounceMs: -1 },
        { botTokenEnv: 'T', chatId: '1', botToken: '123:abc' },
      ],
    });
    expect(issues.map((issue) => issue.slice(0, issue.indexOf(': '))).sort()).toEqual([
      'notifications.discord.0.url',
      'notifications.discord.0.webhook',
      'notifications.discord.1.events.0',
      'notifications.telegram.0.botTokenEnv',
      'notifications.telegram.0.chatId',
      'notifications.telegram.1.botTokenEnv',
      'notifications.telegram.1.chatId',
      'notifications.telegram.1.debounceMs',
      'notifications.telegram.2.botToken',
    ]);
    expect(issues).toContain('notifications.telegram.2.botToken: unknown key');
    expect(issues).toContain(
      'notifications.telegram.1.chatId: a chat id as a string ("-100123") or "@channelname"',
    );
  });

  it('accepts numeric chat ids as strings and public @channel names only', () => {
    for (const chatId of ['-1001234567890', '42', '@fuego_pool']) {
      expect(notificationConfigSchema.safeParse({ telegram: [{ botTokenEnv: 'T', chatId }] }).success).toBe(
        true,
      );
    }
    for (const chatId of ['', '@ab', '1e5', '-', '@bad name']) {
      expect(notificationConfigSchema.safeParse({ telegram: [{ botTokenEnv: 'T', chatId }] }).success).toBe(
        false,
      );
    }
  });

  it('block-orphan-settled and block-orphan-restored: default events, and names a target may list', () => {
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('block-orphan-settled');
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('block-orphan-restored');
    const parsed = notificationConfigSchema.parse({
      webhooks: [{ url: 'https://h.example/', events: ['block-orphan-restored'] }],
      discord: [{ url: 'https://d.example/' }],
    });
    expect(parsed.webhooks[0]!.events).toEqual(['block-orphan-restored']);
    expect(parsed.discord?.[0]?.events).toEqual(
      expect.arrayContaining(['block-orphan-settled', 'block-orphan-restored']),
    );
  });

  it('block-orphan-restore-undone: a default event, and a name a target may list', () => {
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('block-orphan-restore-undone');
    const parsed = notificationConfigSchema.parse({
      telegram: [{ botTokenEnv: 'T', chatId: '1', events: ['block-orphan-restore-undone'] }],
    });
    expect(parsed.telegram?.[0]?.events).toEqual(['block-orphan-restore-undone']);
  });

  it('block-orphan-back-uncredited: a default event, and a name a target may list', () => {
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('block-orphan-back-uncredited');
    const parsed = notificationConfigSchema.parse({
      discord: [{ url: 'https://d.example/', events: ['block-orphan-back-uncredited'] }],
    });
    expect(parsed.discord?.[0]?.events).toEqual(['block-orphan-back-uncredited']);
  });

  it('payout-unknown-to-wallet: a default event of every kind of target, and a name a target may list', () => {
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('payout-unknown-to-wallet');
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('payout-unknown-to-wallet-resolved');
    const parsed = notificationConfigSchema.parse({
      webhooks: [{ url: 'https://h.example/', events: ['payout-unknown-to-wallet'] }],
      discord: [{ url: 'https://d.example/' }],
      telegram: [{ botTokenEnv: 'T', chatId: '1', events: ['payment-failed', 'payout-unknown-to-wallet'] }],
    });
    expect(parsed.webhooks[0]!.events).toEqual(['payout-unknown-to-wallet']);
    expect(parsed.discord![0]!.events).toContain('payout-unknown-to-wallet');
    expect(someTargetLists(parsed, 'payout-unknown-to-wallet')).toBe(true);
    // A near miss names the key.
    expect(
      issuesOf({ webhooks: [{ url: 'https://h.example/', events: ['payout-unknown-to-wallets'] }] }),
    ).toEqual([expect.stringMatching(/^notifications\.webhooks\.0\.events\.0: /)]);
  });

  it('payout-unmined: a default event of every kind of target, and a name a target may list', () => {
    expect(DEFAULT_NOTIFICATION_EVENTS).toContain('payout-unmined');
    const parsed = notificationConfigSchema.parse({
      webhooks: [{ url: 'https://h.example/' }],
      telegram: [{ botTokenEnv: 'T', chatId: '1', events: ['payout-unmined'] }],
    });
    expect(parsed.webhooks[0]!.events).toContain('payout-unmined');
    expect(parsed.telegram![0]!.events).toEqual(['payout-unmined']);
  });

  it('worker-offline: sent only where listed, by any kind of target', () => {
    const parse = (section: unknown) => notificationConfigSchema.parse(section);
    const telegram = { botTokenEnv: 'T', chatId: '1' };
    expect(someTargetLists(parse({}), 'worker-offline')).toBe(false);
    expect(
      someTargetLists(
        parse({
          webhooks: [{ url: 'https://h.example/' }],
          discord: [{ url: 'https://d.example/' }],
          telegram: [telegram],
        }),
        'worker-offline',
      ),
    ).toBe(false);
    expect(someTargetLists(parse({ webhooks: [{ url: 'https://h.example/' }] }), 'block-found')).toBe(true);
    for (const section of [
      { webhooks: [{ url: 'https://h.example/', events: ['worker-offline'] }] },
      { discord: [{ url: 'https://d.example/', events: ['block-found', 'worker-offline'] }] },
      { telegram: [{ ...telegram, events: ['worker-offline'] }] },
    ]) {
      expect(someTargetLists(parse(section), 'worker-offline')).toBe(true);
    }
  });
});
