import { randomUUID } from 'node:crypto';
import type { ExplorerLinks } from '../../config/explorer-schema.js';
import { NOTIFICATION_EVENT_NAMES, type NotificationConfig } from '../../config/notifications-schema.js';
import type { Logger } from '../../log/logger.js';
import { BurstCollector } from './burst-collector.js';
import type { Burst } from './chat-message.js';
import {
  type DiscordTargetConfig,
  discordTarget,
  type TelegramTargetConfig,
  telegramTarget,
} from './chat-targets.js';
import { type DeliveryLogs, deliveryLogs, flushDeliveryLogs } from './delivery-logs.js';
import type {
  NotificationEventMap,
  NotificationEventName,
  NotificationEventSource,
} from './notification-events.js';
import { type NotificationTarget, withoutSecrets } from './notification-target.js';
import { type SendFailure, sendNotification } from './send-notification.js';
import { type WebhookTargetConfig, webhookTarget } from './webhook-target.js';

export type WebhookNotifierOptions = Pick<
  NotificationConfig,
  'timeoutMs' | 'maxRetries' | 'initialBackoffMs' | 'maxBackoffMs' | 'maxQueueSize' | 'concurrency'
> & {
  readonly webhooks: readonly WebhookTargetConfig[];
  readonly discord?: readonly DiscordTargetConfig[] | undefined;
  readonly telegram?: readonly TelegramTargetConfig[] | undefined;
  /** The pool's explorer link templates (`api.explorer`), for links in chat messages. */
  readonly explorer?: ExplorerLinks | undefined;
};

export interface WebhookNotifierModules {
  readonly events: NotificationEventSource;
  readonly logger: Logger;
  /** Defaults to the global fetch; tests inject a fake. */
  readonly fetch?: typeof fetch;
  /** Where secretEnv and botTokenEnv names are looked up; defaults to process.env. */
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
  /** Events in open debounce windows, not yet a notification. */
  readonly debouncing: number;
}

export interface WebhookNotifier {
  metrics(): WebhookMetrics;
  /**
   * Unsubscribes, ends the open debounce windows, starts what is due while request slots are
   * free, lets the requests in flight finish (each bounded by timeoutMs), logs what is left.
   */
  close(): Promise<void>;
}

interface Delivery {
  readonly seq: number;
  readonly id: string;
  readonly event: NotificationEventName;
  readonly createdAtMs: number;
  readonly target: NotificationTarget;
  readonly body: string;
  attempts: number;
  dueAtMs: number;
}

/**
 * Notifications of pool events to every configured target: signed JSON webhooks, Discord
 * webhooks and Telegram chats (notification-target.ts). The event listener only renders the
 * notification and queues it, or adds the event to the target's debounce window (synchronous,
 * no I/O), so a slow or dead receiver never slows a share, a block or a payout. A pump sends up
 * to `concurrency` requests at once, at most one per target (a receiver that never answers holds
 * one slot, never the other targets' turn); a failure is retried after
 * initialBackoffMs * 2^(attempt-1) (capped at maxBackoffMs), or after the receiver's 429 or 503
 * retry_after if longer (nothing else goes to that target meanwhile), up to maxRetries times.
 * The queue holds at most maxQueueSize notifications: when full, the oldest waiting one is
 * dropped and counted (a burst of recent news is worth more than a stale one).
 */
export function createWebhookNotifier(
  options: WebhookNotifierOptions,
  modules: WebhookNotifierModules,
): WebhookNotifier {
  const env = modules.env ?? process.env;
  const clock = modules.clock ?? Date.now;
  const targets = notificationTargets(options, { env, logger: modules.logger, clock });
  return new WebhookQueue(options, { ...modules, clock }, targets);
}

/**
 * The configured targets, each with its secret read from `env`; a missing or malformed secret
 * throws the NotificationError naming its config key (planStart calls this before anything runs).
 */
export function notificationTargets(
  options: Pick<WebhookNotifierOptions, 'webhooks' | 'discord' | 'telegram' | 'explorer'>,
  modules: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly logger: Logger;
    readonly clock: () => number;
  },
): NotificationTarget[] {
  const { env, logger, clock } = modules;
  const context = options.explorer === undefined ? {} : { explorer: options.explorer };
  return [
    ...options.webhooks.map((config, index) => webhookTarget(config, index, { env, logger })),
    ...(options.discord ?? []).map((config, index) => discordTarget(config, index, context, clock)),
    ...(options.telegram ?? []).map((config, index) => telegramTarget(config, index, context, env)),
  ];
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
  /** Targets with a request in flight: one at a time each, so a dead receiver holds one slot only. */
  readonly #sending = new Set<NotificationTarget>();
  readonly #unsubscribe: Array<() => void> = [];
  readonly #counts = { delivered: 0, retried: 0, givenUp: 0, dropped: 0 };
  readonly #bursts: BurstCollector;
  /** Drops, retries, give-ups come in floods (an outage, a dead receiver): bounded lines. */
  readonly #logs: DeliveryLogs;
  /** Targets that asked to wait (429, 503 with Retry-After): nothing is sent to them before this time. */
  readonly #pausedUntilMs = new Map<NotificationTarget, number>();
  #seq = 0;
  /** Requests in flight at close() that then failed: not retried, lost with the waiting ones. */
  #failedAtShutdown = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDueMs = Number.POSITIVE_INFINITY;
  #pumpScheduled = false;
  /** close() was called: no new events are taken. */
  #closing = false;
  /** close() has started its last requests: nothing more is sent. */
  #closed = false;

  constructor(
    options: WebhookNotifierOptions,
    modules: WebhookNotifierModules & { readonly clock: () => number },
    targets: readonly NotificationTarget[],
  ) {
    this.#options = options;
    this.#logger = modules.logger;
    this.#fetch = modules.fetch ?? fetch;
    this.#clock = modules.clock;
    this.#isActive = modules.isActive ?? (() => true);
    this.#bursts = new BurstCollector((target, event, burst) => this.#onBurst(target, event, burst));
    this.#logs = deliveryLogs(this.#logger, this.#clock, this.#counts);
    for (const name of NOTIFICATION_EVENT_NAMES) {
      const subscribed = targets.filter((target) => target.events.includes(name));
      if (subscribed.length === 0) continue;
      this.#unsubscribe.push(
        modules.events.subscribe(name, (payload) => this.#onEvent(name, payload, subscribed)),
      );
    }
  }

  metrics(): WebhookMetrics {
    return {
      queued: this.#waiting.length,
      inFlight: this.#inFlight.size,
      ...this.#counts,
      debouncing: this.#bursts.waiting(),
    };
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    clearTimeout(this.#timer);
    // Open debounce windows end now, and what is due gets its attempt while slots are free: an
    // event published just before (a block found, the leader's last payout) is still told.
    this.#bursts.flushAll();
    this.#startDue(this.#clock());
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    flushDeliveryLogs(this.#logs);
    const undelivered = this.#waiting.length + this.#failedAtShutdown;
    if (undelivered > 0) {
      this.#logger.warn({ undelivered }, 'webhook notifications not delivered at shutdown');
    }
  }

  /** Runs inside the publisher's call: render or debounce, queue, return. Never throws, never waits. */
  #onEvent<K extends NotificationEventName>(
    event: K,
    payload: NotificationEventMap[K],
    targets: readonly NotificationTarget[],
  ): void {
    if (this.#closed) return;
    try {
      if (!this.#isActive()) return;
      for (const target of targets) {
        if (target.debounceMs > 0) this.#bursts.add(target, event, payload);
        else this.#queue(target, event, { payloads: [payload], omitted: 0 });
      }
      this.#schedulePump();
    } catch (error) {
      this.#logger.error({ err: error, event }, 'webhook notification not queued');
    }
  }

  /** A debounce window ended (in a timer of its own). */
  #onBurst(target: NotificationTarget, event: NotificationEventName, burst: Burst<unknown>): void {
    if (this.#closed) return;
    try {
      this.#queue(target, event, burst as Burst<NotificationEventMap[typeof event]>);
      this.#schedulePump();
    } catch (error) {
      this.#logger.error({ err: error, event, ...target.log }, 'webhook notification not queued');
    }
  }

  #queue<K extends NotificationEventName>(
    target: NotificationTarget,
    event: K,
    burst: Burst<NotificationEventMap[K]>,
  ): void {
    const id = randomUUID();
    const createdAtMs = this.#clock();
    const body = target.render(event, burst, { id, createdAtMs });
    this.#enqueue({
      seq: this.#seq++,
      id,
      event,
      createdAtMs,
      target,
      body,
      attempts: 0,
      dueAtMs: createdAtMs,
    });
  }

  #enqueue(delivery: Delivery): void {
    // Retries go back in creation order: "oldest" means the oldest event, not the last attempt.
    let at = this.#waiting.length;
    while (at > 0 && this.#waiting[at - 1]!.seq > delivery.seq) at -= 1;
    this.#waiting.splice(at, 0, delivery);
    while (this.#waiting.length > this.#options.maxQueueSize) {
      const dropped = this.#waiting.shift()!;
      this.#counts.dropped += 1;
      this.#logs.dropped.record(dropped.target, dropped.event, {
        delivery: dropped.id,
        droppedTotal: this.#counts.dropped,
      });
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

  /** Whether a delivery may go now: due, its target not paused and not already sending. */
  #isReady(delivery: Delivery, now: number): boolean {
    return this.#readyAtMs(delivery) <= now && !this.#sending.has(delivery.target);
  }

  /** When a delivery may be attempted: its own due time, or later while its target is paused. */
  #readyAtMs(delivery: Delivery): number {
    return Math.max(delivery.dueAtMs, this.#pausedUntilMs.get(delivery.target) ?? 0);
  }

  #pump(): void {
    if (this.#closed) return;
    const now = this.#clock();
    this.#startDue(now);
    this.#armTimer(now);
  }

  /** Starts the due deliveries, oldest first, while request slots are free. */
  #startDue(now: number): void {
    while (this.#inFlight.size < this.#options.concurrency) {
      const index = this.#waiting.findIndex((d) => this.#isReady(d, now));
      if (index < 0) break;
      const delivery = this.#waiting.splice(index, 1)[0]!;
      this.#sending.add(delivery.target);
      const attempt = this.#attempt(delivery).finally(() => {
        this.#inFlight.delete(attempt);
        this.#sending.delete(delivery.target);
        this.#pump();
      });
      this.#inFlight.add(attempt);
    }
  }

  /**
   * One timer, for the earliest retry, when a request slot is free to take it. Deliveries of a
   * target that is sending are left out: its request's end pumps again.
   */
  #armTimer(now: number): void {
    if (this.#inFlight.size >= this.#options.concurrency) return;
    let nextDueMs = Number.POSITIVE_INFINITY;
    for (const delivery of this.#waiting) {
      if (!this.#sending.has(delivery.target)) nextDueMs = Math.min(nextDueMs, this.#readyAtMs(delivery));
    }
    if (nextDueMs === Number.POSITIVE_INFINITY) return;
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
      ...target.log,
      event: delivery.event,
      delivery: delivery.id,
      attempt: delivery.attempts,
    };
    const attemptAtMs = this.#clock();
    const request = target.request(delivery, attemptAtMs);
    const result = await sendNotification(this.#fetch, request, this.#options.timeoutMs, attemptAtMs);
    if (result.outcome === 'delivered') {
      this.#counts.delivered += 1;
      this.#logger.debug(log, 'webhook delivered');
      return;
    }
    const detail = withoutSecrets(result.detail, target.secrets);
    if (result.outcome === 'refused' || delivery.attempts > this.#options.maxRetries) {
      this.#counts.givenUp += 1;
      const line = result.outcome === 'refused' ? this.#logs.refused : this.#logs.givenUp;
      line.record(target, delivery.event, { ...log, detail });
      return;
    }
    if (this.#closed) {
      // Nothing will retry it: close() has started its last requests.
      this.#failedAtShutdown += 1;
      this.#logger.warn({ ...log, detail }, 'webhook failed at shutdown; not delivered');
      return;
    }
    this.#counts.retried += 1;
    const delayMs = this.#retryDelayMs(delivery, result);
    this.#logs.retry.record(target, delivery.event, { ...log, detail, retryInMs: delayMs });
    delivery.dueAtMs = this.#clock() + delayMs;
    this.#enqueue(delivery);
  }

  /** Backoff, or the receiver's retry_after when longer (which also holds its other notifications). */
  #retryDelayMs(delivery: Delivery, result: SendFailure): number {
    const backoffMs = Math.min(
      this.#options.maxBackoffMs,
      this.#options.initialBackoffMs * 2 ** (delivery.attempts - 1),
    );
    if (result.retryAfterMs === undefined) return backoffMs;
    const pausedUntilMs = this.#clock() + result.retryAfterMs;
    this.#pausedUntilMs.set(
      delivery.target,
      Math.max(pausedUntilMs, this.#pausedUntilMs.get(delivery.target) ?? 0),
    );
    return Math.max(backoffMs, result.retryAfterMs);
  }
}
