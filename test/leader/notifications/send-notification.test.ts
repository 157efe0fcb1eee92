import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryAfterOf } from '../../../src/leader/notifications/send-notification.js';

const NOW = Date.UTC(2026, 0, 1);

describe('retry_after of a 429', () => {
  it('reads the header (seconds or HTTP date), Discord retry_after and Telegram parameters.retry_after', () => {
    const none = new Headers();
    expect(retryAfterOf(new Headers({ 'retry-after': '3' }), undefined, NOW)).toBe(3_000);
    expect(retryAfterOf(new Headers({ 'retry-after': '0.25' }), undefined, NOW)).toBe(250);
    expect(
      retryAfterOf(new Headers({ 'retry-after': new Date(NOW + 7_000).toUTCString() }), undefined, NOW),
    ).toBe(7_000);
    expect(retryAfterOf(none, { retry_after: 1.2345, global: false }, NOW)).toBe(1_235);
    expect(retryAfterOf(none, { ok: false, parameters: { retry_after: 14 } }, NOW)).toBe(14_000);
  });

  it('takes the longest when several are given, caps it, and ignores what is not a number', () => {
    expect(retryAfterOf(new Headers({ 'retry-after': '2' }), { retry_after: 5 }, NOW)).toBe(5_000);
    expect(retryAfterOf(new Headers(), { retry_after: 1e9 }, NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterOf(new Headers({ 'retry-after': 'soon' }), { retry_after: '5' }, NOW)).toBeUndefined();
    expect(retryAfterOf(new Headers(), 'text', NOW)).toBeUndefined();
    expect(retryAfterOf(new Headers({ 'retry-after': new Date(NOW - 5_000).toUTCString() }), null, NOW)).toBe(
      0,
    );
  });
});
