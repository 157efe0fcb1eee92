import { afterEach, describe, expect, it, vi } from 'vitest';
import { monotonicMs } from '../src/monotonic-clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('monotonicMs', () => {
  it('is the time origin plus the time since it, and never goes back', () => {
    const before = performance.timeOrigin + performance.now();
    const first = monotonicMs();
    const second = monotonicMs();
    const after = performance.timeOrigin + performance.now();
    expect(first).toBeGreaterThanOrEqual(before);
    expect(second).toBeGreaterThanOrEqual(first);
    expect(after).toBeGreaterThanOrEqual(second);
  });

  it("follows a test's fake clock, and the real one again once it is gone", () => {
    monotonicMs();
    vi.useFakeTimers({ toFake: ['performance'], now: 1_000_000 });
    const faked = monotonicMs();
    expect(faked).toBe(performance.timeOrigin + performance.now());
    vi.advanceTimersByTime(250);
    expect(monotonicMs() - faked).toBe(250);
    vi.useRealTimers();
    const real = monotonicMs();
    expect(Math.abs(real - (performance.timeOrigin + performance.now()))).toBeLessThan(50);
    expect(Math.abs(real - Date.now())).toBeLessThan(60_000);
  });
});
