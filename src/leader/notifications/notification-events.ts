import type { PoolEventBus, PoolEventMap } from '../../pool/events.js';

/** A payout batch the wallet refused (state `failed`: its miners were credited back). */
export type PaymentFailedEvent = PoolEventMap['payment-failed'];

export interface NotificationEventMap {
  readonly 'block-found': PoolEventMap['block-found'];
  readonly 'block-confirmed': PoolEventMap['block-confirmed'];
  readonly 'block-orphaned': PoolEventMap['block-orphaned'];
  readonly 'payment-sent': PoolEventMap['payment-sent'];
  readonly 'payment-failed': PaymentFailedEvent;
}

export type NotificationEventName = keyof NotificationEventMap;

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
