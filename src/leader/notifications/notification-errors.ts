import { FuegoPoolError } from '../../errors.js';

export type NotificationErrorCode = 'INVALID_URL' | 'MISSING_SECRET' | 'INVALID_BOT_TOKEN';

/** Raised when the notifier is created from a config it cannot honour (fail fast at start). */
export class NotificationError extends FuegoPoolError<NotificationErrorCode> {}
