import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NotificationTarget } from '../../../src/leader/notifications/notification-target.js';
import { RepeatedLog, targetName } from '../../../src/leader/notifications/repeated-log.js';
import type { Logger } from '../../../src/log/logger.js';
import { captureLogs } from '../../helpers/log-capture.js';

function target(log: Record<string, string | number>): NotificationTarget {
  return {
    log,
    events: ['block-found'],
    debounceMs: 0,
    secrets: [],
    render: () => '',
    request: () => ({ url: '', headers: {}, body: '' }),
  };
}

const WEBHOOK = target({ webhook: 0, origin: 'http://127.0.0.1:9' });
const DISCORD = target({ discord: 1, origin: 'https://discord.com' });

describe('RepeatedLog', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function repeated(logger: Logger) {
    return new RepeatedLog({
      logger,
      clock: Date.now,
      level: 'warn',
      message: 'it failed',
      summaryMessage: 'it failed since the last line',
      countField: 'failed',
      summaryFields: () => ({ failedTotal: 99 }),
    });
  }

  it('sums up repeats that stop within the interval once it ends (a timer), then logs the next at once', () => {
    const { logger, records } = captureLogs();
    const log = repeated(logger);
    const warnings = () => records.filter((r) => r['level'] === 40);
    log.record(WEBHOOK, 'block-found', { detail: 'HTTP 500' });
    log.record(WEBHOOK, 'block-found', { detail: 'HTTP 502' });
    log.record(DISCORD, 'worker-offline', {});
    expect(warnings()).toHaveLength(1);
    expect(records.filter((r) => r['level'] === 20)).toHaveLength(2); // the repeats, at debug
    vi.advanceTimersByTime(60_000);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toMatchObject({
      msg: 'it failed since the last line',
      failed: 2,
      failedTotal: 99,
      lastDetail: 'HTTP 502',
      byTarget: { 'webhook.0': { 'block-found': 1 }, 'discord.1': { 'worker-offline': 1 } },
    });
    expect(JSON.stringify(warnings()[1])).not.toContain('127.0.0.1');
    // Quiet for an interval: the next one is logged at once, with its detail.
    vi.advanceTimersByTime(60_000);
    log.record(WEBHOOK, 'block-found', { detail: 'HTTP 503' });
    expect(warnings()).toHaveLength(3);
    expect(warnings()[2]).toMatchObject({ msg: 'it failed', webhook: 0, detail: 'HTTP 503' });
  });

  it('flush() logs what was counted (at shutdown) and nothing when nothing was', () => {
    const { logger, records } = captureLogs();
    const log = repeated(logger);
    log.flush();
    expect(records).toEqual([]);
    log.record(WEBHOOK, 'block-found', {});
    log.record(WEBHOOK, 'block-found', {});
    log.flush();
    expect(records.filter((r) => r['level'] === 40).map((r) => r['failed'])).toEqual([undefined, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('still sums up within an interval when the wall clock is set back', () => {
    const { logger, records } = captureLogs();
    let offsetMs = 0;
    const log = new RepeatedLog({
      logger,
      clock: () => Date.now() + offsetMs,
      level: 'warn',
      message: 'it failed',
      summaryMessage: 'it failed since the last line',
      countField: 'failed',
    });
    log.record(WEBHOOK, 'block-found', {});
    offsetMs = -3_600_000; // NTP set the clock back an hour
    log.record(WEBHOOK, 'block-found', {});
    vi.advanceTimersByTime(60_000);
    expect(records.filter((r) => r['level'] === 40).map((r) => r['failed'])).toEqual([undefined, 1]);
  });

  it('names a target by kind and index, never by its origin', () => {
    expect(targetName(WEBHOOK)).toBe('webhook.0');
    expect(targetName(DISCORD)).toBe('discord.1');
  });
});
