import {
  BLOCK_CONFIRMED_FORMAT,
  BLOCK_FOUND_FORMAT,
  BLOCK_ORPHANED_AFTER_CREDIT_FORMAT,
  BLOCK_ORPHANED_FORMAT,
  BLOCK_REFUSED_FORMAT,
} from './block-event-formats.js';
import type { EventFormat } from './event-format.js';
import type { NotificationEventMap, NotificationEventName } from './notification-events.js';
import {
  BLOCK_ORPHAN_BACK_UNCREDITED_FORMAT,
  BLOCK_ORPHAN_RESTORE_UNDONE_FORMAT,
  BLOCK_ORPHAN_RESTORED_FORMAT,
  BLOCK_ORPHAN_SETTLED_FORMAT,
} from './orphan-settlement-event-formats.js';
import {
  PAYMENT_FAILED_FORMAT,
  PAYMENT_SENT_FORMAT,
  PAYOUT_UNKNOWN_TO_WALLET_FORMAT,
  PAYOUT_UNKNOWN_TO_WALLET_RESOLVED_FORMAT,
  PAYOUT_UNMINED_FORMAT,
} from './payment-event-formats.js';
import { WORKER_OFFLINE_FORMAT } from './worker-event-formats.js';

/**
 * Every notification event's JSON data and chat message. A new event (its name added to
 * NOTIFICATION_EVENT_NAMES) does not compile until it has its entry here; nothing else in the
 * notifier names events.
 */
export const EVENT_FORMATS: { readonly [K in NotificationEventName]: EventFormat<NotificationEventMap[K]> } =
  {
    'block-found': BLOCK_FOUND_FORMAT,
    'block-refused': BLOCK_REFUSED_FORMAT,
    'block-confirmed': BLOCK_CONFIRMED_FORMAT,
    'block-orphaned': BLOCK_ORPHANED_FORMAT,
    'block-orphaned-after-credit': BLOCK_ORPHANED_AFTER_CREDIT_FORMAT,
    'block-orphan-settled': BLOCK_ORPHAN_SETTLED_FORMAT,
    'block-orphan-restored': BLOCK_ORPHAN_RESTORED_FORMAT,
    'block-orphan-restore-undone': BLOCK_ORPHAN_RESTORE_UNDONE_FORMAT,
    'block-orphan-back-uncredited': BLOCK_ORPHAN_BACK_UNCREDITED_FORMAT,
    'payment-sent': PAYMENT_SENT_FORMAT,
    'payment-failed': PAYMENT_FAILED_FORMAT,
    'payout-unknown-to-wallet': PAYOUT_UNKNOWN_TO_WALLET_FORMAT,
    'payout-unknown-to-wallet-resolved': PAYOUT_UNKNOWN_TO_WALLET_RESOLVED_FORMAT,
    'payout-unmined': PAYOUT_UNMINED_FORMAT,
    'worker-offline': WORKER_OFFLINE_FORMAT,
  };

/** The format of `event`, typed for its payload. */
export function formatOf<K extends NotificationEventName>(event: K): EventFormat<NotificationEventMap[K]> {
  return EVENT_FORMATS[event] as EventFormat<NotificationEventMap[K]>;
}
