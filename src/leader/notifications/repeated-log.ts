import type { Logger } from '../../log/logger.js';
import type { NotificationEventName } from './notification-events.js';
import type { NotificationTarget } from './notification-target.js';

/** While a line keeps repeating, one summary per this interval. */
export const REPEATED_LOG_INTERVAL_MS = 60_000;

export interface RepeatedLogOptions {
  readonly logger: Logger;
  readonly level: 'warn' | 'error';
  /** The message of the line logged at once (and of each repeat at debug). */
  readonly message: string;
  readonly summaryMessage: string;
  /** The summary's field for the count since the last line (`dropped`). */
  readonly countField: string;
  readonly clock: () => number;
  /** More fields of a summary, read when it is logged (a running total). */
  readonly summaryFields?: () => Record<string, unknown>;
  readonly intervalMs?: number;
}

/**
 * A line that an outage or a dead receiver would repeat once per notification (a drop, a retry):
 * the first is logged at once with its detail; repeats within the interval go to debug only and
 * are counted by target and event, and one summary line per interval tells how many while they
 * continue. The line after a quiet interval is logged at once again.
 */
export class RepeatedLog {
  readonly #options: RepeatedLogOptions;
  readonly #intervalMs: number;
  /** Counts since the last line: target name -> event -> count. */
  readonly #pending = new Map<string, Map<NotificationEventName, number>>();
  #pendingCount = 0;
  /** The `detail` field of the last repeat counted (the receiver's error, secrets removed). */
  #lastDetail: string | undefined;
  #nextLineAtMs = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RepeatedLogOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? REPEATED_LOG_INTERVAL_MS;
  }

  record(target: NotificationTarget, event: NotificationEventName, fields: Record<string, unknown>): void {
    const { logger, level, message, clock } = this.#options;
    // `fields` hold no URL or secret: the caller removed them (withoutSecrets), as for every line.
    const now = clock();
    if (this.#pendingCount === 0 && now >= this.#nextLineAtMs) {
      logger[level]({ ...target.log, event, ...fields }, message);
      this.#nextLineAtMs = now + this.#intervalMs;
      return;
    }
    logger.debug({ ...target.log, event, ...fields }, message);
    this.#count(targetName(target), event);
    if (typeof fields['detail'] === 'string') this.#lastDetail = fields['detail'];
    if (now >= this.#nextLineAtMs) this.flush();
    else this.#armTimer(this.#nextLineAtMs - now);
  }

  /** Logs the summary of what was counted since the last line, if anything (also at shutdown). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pendingCount === 0) return;
    const { logger, level, summaryMessage, countField, clock, summaryFields } = this.#options;
    const byTarget: Record<string, Record<string, number>> = {};
    for (const [name, byEvent] of this.#pending) byTarget[name] = Object.fromEntries(byEvent);
    const last = this.#lastDetail === undefined ? {} : { lastDetail: this.#lastDetail };
    logger[level](
      { [countField]: this.#pendingCount, ...summaryFields?.(), ...last, byTarget },
      summaryMessage,
    );
    this.#pending.clear();
    this.#pendingCount = 0;
    this.#lastDetail = undefined;
    this.#nextLineAtMs = clock() + this.#intervalMs;
  }

  #count(name: string, event: NotificationEventName): void {
    let byEvent = this.#pending.get(name);
    if (byEvent === undefined) {
      byEvent = new Map();
      this.#pending.set(name, byEvent);
    }
    byEvent.set(event, (byEvent.get(event) ?? 0) + 1);
    this.#pendingCount += 1;
  }

  /** Repeats that stop still get their summary, within an interval (even if the clock was set back). */
  #armTimer(delayMs: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.flush(), Math.min(delayMs, this.#intervalMs));
    this.#timer.unref?.();
  }
}

/** A target by kind and index (`webhook.0`, `telegram.1`): never its URL or origin. */
export function targetName(target: NotificationTarget): string {
  return Object.entries(target.log)
    .filter(([key]) => key !== 'origin')
    .map(([key, value]) => `${key}.${value}`)
    .join(' ');
}
