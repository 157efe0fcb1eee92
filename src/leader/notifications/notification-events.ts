import type { NOTIFICATION_EVENT_NAMES } from '../../config/notifications-schema.js';
import type { PoolEventBus, PoolEventMap } from '../../pool/events.js';

/** A payout batch the wallet refused (state `failed`: its miners were credited back). */
export type PaymentFailedEvent = PoolEventMap['payment-failed'];

/** The events a target can subscribe to (the config's list): each one a pool event of that name. */
export type NotificationEventName = (typeof NOTIFICATION_EVENT_NAMES)[number];

export type NotificationEventMap = Pick<PoolEventMap, NotificationEventName>;

/** What the notifier subscribes to: the pool's event bus, seen through notificationEventsOf. */
export interface NotificationEventSource {
  subscribe<K extends NotificationEventName>(
    name: K,
    listener: (payload: NotificationEventMap[K]) => void,
  ): () => void;
}

/** The pool's bus as a NotificationEventSource (every notification event is a pool event). */
export function notificationEventsOf(bus: Pick<PoolEventBus, 'subscribe'>): NotificationEventSource {
  return { subscribe: (name, listener) => bus.subscribe(name, listener) };
}
