import { formatAtomic } from '../../fuego/money.js';
import type { NotificationEventMap, NotificationEventName } from './notification-events.js';

export interface WebhookPayloadOptions {
  readonly includeAddresses: boolean;
}

/**
 * The JSON body of one notification:
 * `{ "id": delivery id, "event": name, "createdAtMs": ms, "data": {...} }`.
 * Each event's `data` is built field by field from an explicit list, never by spreading the
 * payload, so a field added to an event later (an IP, a worker name) cannot leak to a webhook
 * unnoticed. Amounts appear twice: atomic units as a decimal string (exact) and XFG ("12.3456789").
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
    data: eventData(event, payload, options),
  });
}

function eventData(
  event: NotificationEventName,
  payload: NotificationEventMap[NotificationEventName],
  options: WebhookPayloadOptions,
): Record<string, unknown> {
  switch (event) {
    case 'block-found': {
      const p = payload as NotificationEventMap['block-found'];
      return {
        height: p.height,
        hash: p.hash,
        solo: p.solo,
        timestampMs: p.timestampMs,
        ...(options.includeAddresses ? { finderAddress: p.finderAddress } : {}),
      };
    }
    case 'block-confirmed': {
      const p = payload as NotificationEventMap['block-confirmed'];
      return {
        height: p.height,
        hash: p.hash,
        rewardAtomic: p.rewardAtomic.toString(),
        reward: formatAtomic(p.rewardAtomic),
      };
    }
    case 'block-orphaned': {
      const p = payload as NotificationEventMap['block-orphaned'];
      return { height: p.height, hash: p.hash };
    }
    case 'payment-sent': {
      const p = payload as NotificationEventMap['payment-sent'];
      return {
        batchId: p.batchId,
        transactionHash: p.transactionHash,
        recipients: p.recipients,
        amountAtomic: p.amountAtomic.toString(),
        amount: formatAtomic(p.amountAtomic),
        feeAtomic: p.feeAtomic.toString(),
        fee: formatAtomic(p.feeAtomic),
        timestampMs: p.timestampMs,
      };
    }
    case 'payment-failed': {
      const p = payload as NotificationEventMap['payment-failed'];
      return {
        batchId: p.batchId,
        recipients: p.recipients,
        amountAtomic: p.amountAtomic.toString(),
        amount: formatAtomic(p.amountAtomic),
        reason: p.reason,
        timestampMs: p.timestampMs,
      };
    }
  }
}
