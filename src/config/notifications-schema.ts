import { z } from 'zod';

/**
 * The events a target gets when it lists none: the pool's blocks (block-refused too: a block the
 * daemon refuses is rare and costly, and a daemon that refuses valid blocks refuses many) and
 * payments, payout-unknown-to-wallet too (miners debited for a transaction the wallet no longer
 * knows: the operator has to settle it) and its settlement by the operator, payout-unmined (a sent
 * payout not mined 6 hours after its send: walletd may need a restart); likewise a block
 * orphaned after credit, its settlement (block-orphan-settled), a later reorg restoring it
 * (block-orphan-restored: a clawed-back one needs the operator again) and yet another one taking a
 * settled one away again (block-orphan-restore-undone: that credit back is no longer owed); and an
 * orphaned block a deeper reorg put back that the ledger does not credit (block-orphan-back-uncredited:
 * its reward is in the wallet, owed to nobody). All rare, all money.
 */
export const DEFAULT_NOTIFICATION_EVENTS = [
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
] as const;

/**
 * The pool events a target can subscribe to (the leader's notifier sends exactly these). Adding
 * one: its name here (a pool event of the same name), and its entry in the notifier's
 * EVENT_FORMATS (JSON data and chat message); the compiler asks for the second.
 * `worker-offline` is sent only to targets that list it: a message per worker that stopped is
 * the operator's (or a farm owner's) choice, not a default.
 */
export const NOTIFICATION_EVENT_NAMES = [...DEFAULT_NOTIFICATION_EVENTS, 'worker-offline'] as const;

/**
 * A webhook target: http or https only, no credentials in the URL (fetch refuses them, and they
 * would end up in logs). The URL itself may still hold a token in its path (chat webhooks do),
 * so logs show only its origin.
 */
export const webhookUrlSchema = z.string().refine((text) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
  );
}, 'must be an http:// or https:// URL without user:password@');

/** Which events go to a target: a per-event switch, default all but worker-offline. */
function eventsSchema() {
  return z
    .array(z.enum(NOTIFICATION_EVENT_NAMES))
    .min(1)
    .default([...DEFAULT_NOTIFICATION_EVENTS])
    .describe(
      'Which events go to this target; default all but worker-offline, which is sent only when listed (a worker without a share for api.workerOfflineMs, once until it mines and stops again).',
    );
}

const envNameSchema = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'an environment variable name (A-Z, 0-9, _)');

/** Chat services rate-limit (Discord ~30 messages a minute per webhook, Telegram ~20 per group). */
const chatDebounceMsSchema = z
  .number()
  .int()
  .min(0)
  .max(600_000)
  .default(10_000)
  .describe(
    'A burst of one event (blocks found or refused, payment batches, workers offline) within this window after its first becomes one message summarising them; 0: one message per event.',
  );

const webhookSchema = z.strictObject({
  url: webhookUrlSchema.describe('Receiver of the signed JSON notifications.'),
  events: eventsSchema(),
  secretEnv: envNameSchema
    .optional()
    .describe(
      'Name of the environment variable holding the HMAC-SHA256 secret; unset: requests are unsigned.',
    ),
  includeAddresses: z
    .boolean()
    .default(false)
    .describe(
      "Put the finder's address in block-found and block-refused (addresses are public, but a chat channel may not want them).",
    ),
});

const discordSchema = z.strictObject({
  url: webhookUrlSchema.describe(
    'Discord webhook URL (channel settings, Integrations, Webhooks); it holds the token: keep the config file private.',
  ),
  events: eventsSchema(),
  debounceMs: chatDebounceMsSchema,
});

/** A numeric chat id (groups and channels are negative) or a public @channelname. */
const telegramChatIdSchema = z
  .string()
  .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'a chat id as a string ("-100123") or "@channelname"');

const telegramSchema = z.strictObject({
  botTokenEnv: envNameSchema.describe(
    'Name of the environment variable holding the bot token (from @BotFather); never in the config file.',
  ),
  chatId: telegramChatIdSchema.describe('The chat the bot posts to: "-100123" or "@channelname".'),
  events: eventsSchema(),
  debounceMs: chatDebounceMsSchema,
  apiBaseUrl: webhookUrlSchema
    .default('https://api.telegram.org')
    .describe('Bot API server (a local Bot API server, or a test receiver).'),
});

/**
 * `notifications` config section: on block found / refused by the daemon / confirmed / orphaned,
 * payment batch sent / failed and (when listed) worker offline, webhooks POSTed (JSON, signed
 * when a secret is set), Discord webhook messages and Telegram bot messages. Delivery is best
 * effort with retries: a bounded in-memory queue, exponential backoff (or the receiver's
 * retry_after), never blocking the pool. The chat targets are optional keys (not defaulted
 * lists) so the section's defaults stay what they were.
 */
export const notificationConfigSchema = z
  .strictObject({
    webhooks: z
      .array(webhookSchema)
      .max(32)
      .default([])
      .describe('Signed JSON webhooks, one notification per event.'),
    discord: z
      .array(discordSchema)
      .max(32)
      .optional()
      .describe('Discord channel webhooks: `[{ "url": "https://discord.com/api/webhooks/ID/TOKEN" }]`.'),
    telegram: z
      .array(telegramSchema)
      .max(32)
      .optional()
      .describe('Telegram bot messages: `[{ "botTokenEnv": "TELEGRAM_BOT_TOKEN", "chatId": "-100123" }]`.'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe('Per attempt, connect to last byte.'),
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(5)
      .describe('Attempts after the first, for network errors, timeouts, 408, 425, 429 and 5xx.'),
    initialBackoffMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(1_000)
      .describe('Wait before the first retry; doubled on each further one.'),
    maxBackoffMs: z
      .number()
      .int()
      .min(10)
      .max(3_600_000)
      .default(300_000)
      .describe("Longest wait between retries (a receiver's retry_after may ask for longer)."),
    maxQueueSize: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(1_000)
      .describe('Notifications waiting (first try or retry); beyond it the oldest is dropped and counted.'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(2)
      .describe('Requests in flight at once, over all targets; at most one per target.'),
  })
  .refine((n) => n.maxBackoffMs >= n.initialBackoffMs, {
    message: 'must be at least initialBackoffMs',
    path: ['maxBackoffMs'],
  });

export type NotificationConfig = z.infer<typeof notificationConfigSchema>;
export type WebhookConfig = NotificationConfig['webhooks'][number];
export type DiscordConfig = NonNullable<NotificationConfig['discord']>[number];
export type TelegramConfig = NonNullable<NotificationConfig['telegram']>[number];

/** Whether any target (webhook, Discord, Telegram) lists `event`. */
export function someTargetLists(
  config: Pick<NotificationConfig, 'webhooks' | 'discord' | 'telegram'>,
  event: (typeof NOTIFICATION_EVENT_NAMES)[number],
): boolean {
  const targets = [...config.webhooks, ...(config.discord ?? []), ...(config.telegram ?? [])];
  return targets.some((target) => target.events.includes(event));
}
