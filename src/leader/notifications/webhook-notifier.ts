import { randomUUID } from 'node:crypto';
import {
  NOTIFICATION_EVENT_NAMES,
  type NotificationConfig,
  type WebhookConfig,
} from '../../config/notifications-schema.js';
import type { Logger } from '../../log/logger.js';
import { NotificationError } from './notification-errors.js';
import type {
  NotificationEventMap,
  NotificationEventName,
  NotificationEventSource,
} from './notification-events.js';
import { webhookBody } from './webhook-payload.js';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature.js';

export type WebhookNotifierOptions = Pick<
  NotificationConfig,
  'timeoutMs' | 'maxRetries' | 'initialBackoffMs' | 'maxBackoffMs' | 'maxQueueSize' | 'concurrency'
> & {
  readonly webhooks: ReadonlyArray<
    Pick<WebhookConfig, 'url' | 'events'> & Partial<Pick<WebhookConfig, 'secretEnv' | 'includeAddresses'>>
  >;
};

export interface WebhookNotifierModules {
  readonly events: NotificationEventSource;
  readonly logger: Logger;
  /** Defaults to the global fetch; tests inject a fake. */
  readonly fetch?: typeof fetch;
  /** Where secretEnv names are looked up; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly clock?: () => number;
  /**
   * Whether this process sends right now. Every process sees every event (the bus is relayed
   * between processes), so exactly one must send: the lead passes "holds the leader lease".
   * Events seen while it answers false are ignored. Default: always.
   */
  readonly isActive?: () => boolean;
}

export interface WebhookMetrics {
  /** Waiting for their first attempt or a retry. */
  readonly queued: number;
  readonly inFlight: number;
  readonly delivered: number;
  /** Attempts that failed and were scheduled again. */
  readonly retried: number;
  /** Notifications abandoned after maxRetries, or refused by the receiver (4xx). */
  readonly givenUp: number;
  /** Dropped (the oldest waiting) because the queue was full. */
  readonly dropped: number;
}

export interface WebhookNotifier {
  metrics(): WebhookMetrics;
  /** Unsubscribes, lets requests in flight finish (each bounded by timeoutMs), logs what is left. */
  close(): Promise<void>;
}

interface Target {
  readonly index: number;
  readonly url: string;
  /** For logs: the URL's path and query may hold a token. */
  readonly origin: string;
  readonly secret: string | undefined;
  readonly includeAddresses: boolean;
}

interface Delivery {
  readonly seq: number;
  readonly id: string;
  readonly event: NotificationEventName;
  readonly target: Target;
  readonly body: string;
  attempts: number;
  dueAtMs: number;
}

type Outcome = 'delivered' | 'retry' | 'refused';

/**
 * Webhook notifications for pool events. The event listener only serialises the notification
 * and queues it (synchronous, no I/O), so a slow or dead receiver never slows a share, a block
 * or a payout. A pump sends up to `concurrency` requests at once; a failure is retried after
 * initialBackoffMs * 2^(attempt-1) (capped at maxBackoffMs) up to maxRetries times. The queue
 * holds at most maxQueueSize notifications: when full, the oldest waiting one is dropped and
 * counted (a burst of recent news is worth more than a stale one).
 */
export function createWebhookNotifier(
  options: WebhookNotifierOptions,
  modules: WebhookNotifierModules,
): WebhookNotifier {
  const targets = options.webhooks.map((webhook, index) =>
    resolveTarget(webhook, index, modules.env ?? process.env),
  );
  return new WebhookQueue(options, modules, targets);
}

function resolveTarget(
  webhook: WebhookNotifierOptions['webhooks'][number],
  index: number,
  env: Readonly<Record<string, string | undefined>>,
): Target {
  let url: URL;
  try {
    url = new URL(webhook.url);
  } catch {
    throw new NotificationError('INVALID_URL', `notifications.webhooks.${index}.url is not a URL`, { index });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new NotificationError(
      'INVALID_URL',
      `notifications.webhooks.${index}.url must be http(s) without credentials (got ${url.protocol})`,
      { index, protocol: url.protocol },
    );
  }
  let secret: string | undefined;
  if (webhook.secretEnv !== undefined) {
    secret = env[webhook.secretEnv];
    if (secret === undefined || secret === '') {
      throw new NotificationError(
        'MISSING_SECRET',
        `notifications.webhooks.${index}.secretEnv: environment variable ${webhook.secretEnv} is not set`,
        { index, secretEnv: webhook.secretEnv },
      );
    }
  }
  return {
    index,
    url: url.href,
    origin: url.origin,
    secret,
    includeAddresses: webhook.includeAddresses ?? false,
  };
}

class WebhookQueue implements WebhookNotifier {
  readonly #options: WebhookNotifierOptions;
  readonly #logger: Logger;
  readonly #fetch: typeof fetch;
  readonly #clock: () => number;
  readonly #isActive: () => boolean;
  /** Waiting deliveries in creation order (seq), so the oldest is always first. */
  readonly #waiting: Delivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #unsubscribe: Array<() => void> = [];
  readonly #counts = { delivered: 0, retried: 0, givenUp: 0, dropped: 0 };
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDueMs = Number.POSITIVE_INFINITY;
  #pumpScheduled = false;
  #closed = false;

  constructor(options: WebhookNotifierOptions, modules: WebhookNotifierModules, targets: readonly Target[]) {
    this.#options = options;
    this.#logger = modules.logger;
    this.#fetch = modules.fetch ?? fetch;
    this.#clock = modules.clock ?? Date.now;
    this.#isActive = modules.isActive ?? (() => true);
    for (const name of NOTIFICATION_EVENT_NAMES) {
      const subscribed = targets.filter((_, i) => options.webhooks[i]!.events.includes(name));
      if (subscribed.length === 0) continue;
      this.#unsubscribe.push(
        modules.events.subscribe(name, (payload) => this.#onEvent(name, payload, subscribed)),
      );
    }
    for (const target of targets) {
      if (target.secret === undefined) {
        this.#logger.warn(
          { webhook: target.index, origin: target.origin },
          'webhook has no secretEnv: requests are unsigned',
        );
      }
    }
  }

  metrics(): WebhookMetrics {
    return { queued: this.#waiting.length, inFlight: this.#inFlight.size, ...this.#counts };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    clearTimeout(this.#timer);
    await Promise.allSettled([...this.#inFlight]);
    if (this.#waiting.length > 0) {
      this.#logger.warn(
        { undelivered: this.#waiting.length },
        'webhook notifications not delivered at shutdown',
      );
    }
  }

  /** Runs inside the publisher's call: serialise, queue, return. Never throws, never waits. */
  #onEvent<K extends NotificationEventName>(
    event: K,
    payload: NotificationEventMap[K],
    targets: readonly Target[],
  ): void {
    if (this.#closed) return;
    try {
      if (!this.#isActive()) return;
      const createdAtMs = this.#clock();
      for (const target of targets) {
        const id = randomUUID();
        const body = webhookBody(
          event,
          payload,
          { id, createdAtMs },
          { includeAddresses: target.includeAddresses },
        );
        this.#enqueue({ seq: this.#seq++, id, event, target, body, attempts: 0, dueAtMs: createdAtMs });
      }
      this.#schedulePump();
    } catch (error) {
      this.#logger.error({ err: error, event }, 'webhook notification not queued');
    }
  }

  #enqueue(delivery: Delivery): void {
    // Retries go back in creation order: "oldest" means the oldest event, not the last attempt.
    let at = this.#waiting.length;
    while (at > 0 && this.#waiting[at - 1]!.seq > delivery.seq) at -= 1;
    this.#waiting.splice(at, 0, delivery);
    while (this.#waiting.length > this.#options.maxQueueSize) {
      const dropped = this.#waiting.shift()!;
      this.#counts.dropped += 1;
      this.#logger.warn(
        {
          webhook: dropped.target.index,
          event: dropped.event,
          delivery: dropped.id,
          dropped: this.#counts.dropped,
        },
        'webhook queue full: dropped the oldest notification',
      );
    }
  }

  /** Pumps on the next turn of the event loop, never inside the publisher's call. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#closed) return;
    const now = this.#clock();
    while (this.#inFlight.size < this.#options.concurrency) {
      const index = this.#waiting.findIndex((d) => d.dueAtMs <= now);
      if (index < 0) break;
      const [delivery] = this.#waiting.splice(index, 1);
      const attempt = this.#attempt(delivery!).finally(() => {
        this.#inFlight.delete(attempt);
        this.#pump();
      });
      this.#inFlight.add(attempt);
    }
    this.#armTimer(now);
  }

  /** One timer, for the earliest retry, when a request slot is free to take it. */
  #armTimer(now: number): void {
    if (this.#inFlight.size >= this.#options.concurrency || this.#waiting.length === 0) return;
    let nextDueMs = Number.POSITIVE_INFINITY;
    for (const delivery of this.#waiting) nextDueMs = Math.min(nextDueMs, delivery.dueAtMs);
    if (this.#timer !== undefined && this.#timerDueMs <= nextDueMs) return;
    clearTimeout(this.#timer);
    this.#timerDueMs = nextDueMs;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerDueMs = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, nextDueMs - now),
    );
    this.#timer.unref?.();
  }

  async #attempt(delivery: Delivery): Promise<void> {
    delivery.attempts += 1;
    const { target } = delivery;
    const log = {
      webhook: target.index,
      origin: target.origin,
      event: delivery.event,
      delivery: delivery.id,
      attempt: delivery.attempts,
    };
    const { outcome, detail } = await this.#post(delivery);
    if (outcome === 'delivered') {
      this.#counts.delivered += 1;
      this.#logger.debug(log, 'webhook delivered');
      return;
    }
    if (outcome === 'refused' || delivery.attempts > this.#options.maxRetries) {
      this.#counts.givenUp += 1;
      this.#logger.error(
        { ...log, detail },
        outcome === 'refused'
          ? 'webhook refused the notification; not retrying'
          : 'webhook failed; giving up after the last retry',
      );
      return;
    }
    this.#counts.retried += 1;
    const delayMs = Math.min(
      this.#options.maxBackoffMs,
      this.#options.initialBackoffMs * 2 ** (delivery.attempts - 1),
    );
    this.#logger.warn({ ...log, detail, retryInMs: delayMs }, 'webhook failed; will retry');
    delivery.dueAtMs = this.#clock() + delayMs;
    this.#enqueue(delivery);
  }

  async #post(delivery: Delivery): Promise<{ outcome: Outcome; detail: string }> {
    const timestampMs = this.#clock();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'fuego-pool-webhook/1',
      [WEBHOOK_HEADERS.event]: delivery.event,
      [WEBHOOK_HEADERS.delivery]: delivery.id,
      [WEBHOOK_HEADERS.timestamp]: String(timestampMs),
    };
    if (delivery.target.secret !== undefined) {
      headers[WEBHOOK_HEADERS.signature] = signWebhook(delivery.target.secret, timestampMs, delivery.body);
    }
    try {
      const response = await this.#fetch(delivery.target.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        // A redirect could point anywhere (another scheme, an internal host): treated as a refusal.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      // The reply body is not read; cancelling frees the connection.
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { outcome: 'delivered', detail: '' };
      const retryable =
        response.status === 408 ||
        response.status === 425 ||
        response.status === 429 ||
        response.status >= 500;
      return { outcome: retryable ? 'retry' : 'refused', detail: `HTTP ${response.status}` };
    } catch (error) {
      const name = (error as { name?: unknown } | null)?.name;
      const detail =
        name === 'TimeoutError' ? `no answer within ${this.#options.timeoutMs} ms` : errorText(error);
      return { outcome: 'retry', detail };
    }
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the real reason (ECONNREFUSED...) in `cause`.
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
