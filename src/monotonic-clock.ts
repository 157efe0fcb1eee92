/**
 * Milliseconds from a point near process start that only go forward (CLOCK_MONOTONIC), for
 * intervals: TTLs, ages, deadlines. A wall-clock step (an NTP correction, a resumed VM) would
 * otherwise keep a cache entry for as long as the clock went back, or expire it at once.
 * Not a date: never store it or show it.
 */
export function monotonicMs(): number {
  // The global is read once a call (a lazy getter in Node), and its time origin only when the
  // global is another object: a test's fake timers replace it. A job push reads this per miner.
  const clock = performance;
  if (clock !== originOf) {
    originOf = clock;
    origin = clock.timeOrigin;
  }
  return origin + clock.now();
}

/** The `performance` object `origin` was read from. */
let originOf: typeof performance | undefined;
let origin = 0;
