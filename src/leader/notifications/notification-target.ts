import type { Burst } from './chat-message.js';
import { NotificationError } from './notification-errors.js';
import type { NotificationEventMap, NotificationEventName } from './notification-events.js';
import type { NotificationRequest } from './send-notification.js';

export interface NotificationMeta {
  /** One id per notification, the same on every retry. */
  readonly id: string;
  readonly createdAtMs: number;
}

/**
 * Where notifications go and in what form: a signed JSON webhook, a Discord webhook or a
 * Telegram chat. The notifier queues, debounces, sends and retries; the target only says which
 * events it wants and turns them into HTTP requests.
 */
export interface NotificationTarget {
  /** Names the target in logs, by kind, index and origin only: `{ discord: 0, origin }`. */
  readonly log: Readonly<Record<string, string | number>>;
  readonly events: readonly NotificationEventName[];
  /** Window in which a burst of one event becomes one notification; 0: one per event. */
  readonly debounceMs: number;
  /** Text that must never reach a log line (a bot token in the request URL). */
  readonly secrets: readonly string[];
  /** The request body for a burst of `event` (a single event when debounceMs is 0). */
  render<K extends NotificationEventName>(
    event: K,
    burst: Burst<NotificationEventMap[K]>,
    meta: NotificationMeta,
  ): string;
  /** The request of one attempt (headers may depend on the attempt's time: a signature). */
  request(
    notification: NotificationMeta & { readonly event: NotificationEventName; readonly body: string },
    attemptAtMs: number,
  ): NotificationRequest;
}

export type SecretEnv = Readonly<Record<string, string | undefined>>;

/** `text` as an http(s) URL without credentials, or a NotificationError naming `key`. */
export function targetUrl(text: string, key: string, index: number): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NotificationError('INVALID_URL', `${key} is not a URL`, { index });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new NotificationError(
      'INVALID_URL',
      `${key} must be http(s) without credentials (got ${url.protocol})`,
      { index, protocol: url.protocol },
    );
  }
  return url;
}

/** The value of the environment variable `name`, or MISSING_SECRET naming the config `key`. */
export function secretFromEnv(env: SecretEnv, name: string, key: string, index: number): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new NotificationError('MISSING_SECRET', `${key}: environment variable ${name} is not set`, {
      index,
      env: name,
    });
  }
  return value;
}

/** `text` with every secret replaced, for a log line. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((clean, secret) => clean.replaceAll(secret, '<secret>'), text);
}
