import { type Burst, MAX_BURST_EVENTS } from './chat-message.js';
import type { NotificationEventName } from './notification-events.js';
import type { NotificationTarget } from './notification-target.js';

interface OpenBurst {
  readonly payloads: unknown[];
  omitted: number;
  readonly timer: NodeJS.Timeout;
}

export type BurstListener = (
  target: NotificationTarget,
  event: NotificationEventName,
  burst: Burst<unknown>,
) => void;

/**
 * Debouncing: the first event of a kind for a target opens a window of the target's debounceMs;
 * events of that kind arriving in it join the burst, and when it ends the burst is handed on as
 * one notification. The window is fixed from the first event (not extended by later ones), so a
 * steady stream still gives a message every debounceMs, and no event waits longer than that.
 * A burst keeps at most MAX_BURST_EVENTS payloads (the oldest go, counted in `omitted`).
 */
export class BurstCollector {
  readonly #open = new Map<NotificationTarget, Map<NotificationEventName, OpenBurst>>();
  readonly #onBurst: BurstListener;

  constructor(onBurst: BurstListener) {
    this.#onBurst = onBurst;
  }

  add(target: NotificationTarget, event: NotificationEventName, payload: unknown): void {
    let byEvent = this.#open.get(target);
    if (byEvent === undefined) {
      byEvent = new Map();
      this.#open.set(target, byEvent);
    }
    const open = byEvent.get(event);
    if (open !== undefined) {
      open.payloads.push(payload);
      if (open.payloads.length > MAX_BURST_EVENTS) {
        open.payloads.shift();
        open.omitted += 1;
      }
      return;
    }
    const timer = setTimeout(() => this.#flush(target, event), target.debounceMs);
    timer.unref?.();
    byEvent.set(event, { payloads: [payload], omitted: 0, timer });
  }

  /** Events waiting in open windows. */
  waiting(): number {
    let count = 0;
    for (const byEvent of this.#open.values()) {
      for (const open of byEvent.values()) count += open.payloads.length + open.omitted;
    }
    return count;
  }

  /** Ends every open window now, handing each burst on (at shutdown: no timer left behind). */
  flushAll(): void {
    for (const [target, byEvent] of [...this.#open]) {
      for (const [event, open] of [...byEvent]) {
        clearTimeout(open.timer);
        this.#flush(target, event);
      }
    }
  }

  #flush(target: NotificationTarget, event: NotificationEventName): void {
    const byEvent = this.#open.get(target);
    const open = byEvent?.get(event);
    if (byEvent === undefined || open === undefined) return;
    byEvent.delete(event);
    if (byEvent.size === 0) this.#open.delete(target);
    this.#onBurst(target, event, { payloads: open.payloads, omitted: open.omitted });
  }
}
