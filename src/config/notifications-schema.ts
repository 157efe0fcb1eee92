import { z } from 'zod';

/** The pool events a webhook can subscribe to (the leader's notifier sends exactly these). */
export const NOTIFICATION_EVENT_NAMES = [
  'block-found',
  'block-confirmed',
  'block-orphaned',
  'payment-sent',
  'payment-failed',
] as const;

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

const webhookSchema = z.strictObject({
  url: webhookUrlSchema.describe(
    'Where the JSON is POSTed: an http(s) URL without user:password@ (logs show only its origin).',
  ),
  events: z
    .array(z.enum(NOTIFICATION_EVENT_NAMES))
    .min(1)
    .default([...NOTIFICATION_EVENT_NAMES])
    .describe('Which events go to this URL; default all.'),
  secretEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, 'an environment variable name (A-Z, 0-9, _)')
    .optional()
    .describe(
      'Name of the environment variable holding the HMAC-SHA256 secret; unset: requests are unsigned.',
    ),
  includeAddresses: z
    .boolean()
    .default(false)
    .describe(
      "Put the finder's address in block-found (addresses are public, but a chat channel may not want them).",
    ),
});

/**
 * `notifications` config section: webhooks POSTed (JSON, signed when a secret is set) on block
 * found / confirmed / orphaned and payment batch sent / failed. Delivery is best effort with
 * retries: a bounded in-memory queue, exponential backoff, never blocking the pool.
 */
export const notificationConfigSchema = z
  .strictObject({
    webhooks: z
      .array(webhookSchema)
      .max(32)
      .default([])
      .describe('The webhook targets, each with its own events; none: nothing is sent.'),
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
      .describe('Wait before the first retry; it doubles with each retry after.'),
    maxBackoffMs: z
      .number()
      .int()
      .min(10)
      .max(3_600_000)
      .default(300_000)
      .describe('The longest wait between retries.'),
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
      .describe('Requests in flight at once, over all webhooks.'),
  })
  .refine((n) => n.maxBackoffMs >= n.initialBackoffMs, {
    message: 'must be at least initialBackoffMs',
    path: ['maxBackoffMs'],
  });

export type NotificationConfig = z.infer<typeof notificationConfigSchema>;
export type WebhookConfig = NotificationConfig['webhooks'][number];
