import type { WebhookPayloadOptions } from './event-format.js';
import { formatOf } from './event-formats.js';
import type { NotificationEventMap, NotificationEventName } from './notification-events.js';

/**
 * The JSON body of one notification:
 * `{ "id": delivery id, "event": name, "createdAtMs": ms, "data": {...} }`.
 * Each event's `data` comes from its EventFormat, built field by field. Amounts appear twice:
 * atomic units as a decimal string (exact) and XFG ("12.3456789").
 */
export function webhookBody<K extends NotificationEventName>(
  event: K,
  payload: NotificationEventMap[K],
  meta: { readonly id: string; readonly createdAtMs: number },
  options: WebhookPayloadOptions,
): string {
  return JSON.stringify({
    id: meta.id,
    event,
    createdAtMs: meta.createdAtMs,
    data: formatOf(event).data(payload, options),
  });
}
