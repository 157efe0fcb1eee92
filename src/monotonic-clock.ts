/**
 * Milliseconds from a point near process start that only go forward (CLOCK_MONOTONIC), for
 * intervals: TTLs, ages, deadlines. A wall-clock step (an NTP correction, a resumed VM) would
 * otherwise keep a cache entry for as long as the clock went back, or expire it at once.
 * Not a date: never store it or show it.
 */
export function monotonicMs(): number {
  return performance.timeOrigin + performance.now();
}
