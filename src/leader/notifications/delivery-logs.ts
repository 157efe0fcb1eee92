import type { Logger } from '../../log/logger.js';
import { RepeatedLog } from './repeated-log.js';

export interface DeliveryCounts {
  readonly retried: number;
  readonly givenUp: number;
  readonly dropped: number;
}

/** The notifier's lines that a dead receiver or an outage repeats once per notification. */
export interface DeliveryLogs {
  /** A notification dropped from the full queue (warn). */
  readonly dropped: RepeatedLog;
  /** A failed attempt that will be retried (warn). */
  readonly retry: RepeatedLog;
  /** A notification abandoned after its last retry (error). */
  readonly givenUp: RepeatedLog;
  /** A notification the receiver refused, not retried (error). */
  readonly refused: RepeatedLog;
}

/**
 * Each line bounded: the first at once, then one summary per minute while it repeats (see
 * RepeatedLog), each summary with the running total from `counts`.
 */
export function deliveryLogs(logger: Logger, clock: () => number, counts: DeliveryCounts): DeliveryLogs {
  return {
    dropped: new RepeatedLog({
      logger,
      clock,
      level: 'warn',
      message: 'webhook queue full: dropped the oldest notification',
      summaryMessage: 'webhook queue full: dropped notifications since the last line',
      countField: 'dropped',
      summaryFields: () => ({ droppedTotal: counts.dropped }),
    }),
    retry: new RepeatedLog({
      logger,
      clock,
      level: 'warn',
      message: 'webhook failed; will retry',
      summaryMessage: 'webhook failed; retries since the last line',
      countField: 'retried',
      summaryFields: () => ({ retriedTotal: counts.retried }),
    }),
    givenUp: new RepeatedLog({
      logger,
      clock,
      level: 'error',
      message: 'webhook failed; giving up after the last retry',
      summaryMessage: 'webhook failed; gave up on notifications since the last line',
      countField: 'givenUp',
      summaryFields: () => ({ givenUpTotal: counts.givenUp }),
    }),
    refused: new RepeatedLog({
      logger,
      clock,
      level: 'error',
      message: 'webhook refused the notification; not retrying',
      summaryMessage: 'webhook refused notifications since the last line; not retrying',
      countField: 'refused',
    }),
  };
}

/** Logs what each line counted since its last line (at shutdown). */
export function flushDeliveryLogs(logs: DeliveryLogs): void {
  for (const log of Object.values(logs)) log.flush();
}
