export interface VardiffConfig {
  /** Seconds between shares the pool aims for, per connection. */
  readonly targetShareTimeSec: number;
  /** Seconds between difficulty reviews. */
  readonly retargetIntervalSec: number;
  /** Tolerated deviation from the target share time before retargeting, in percent. */
  readonly variancePercent: number;
  readonly minDifficulty: number;
  readonly maxDifficulty: number;
  /** Largest factor one retarget may move the difficulty by (both ways). */
  readonly maxChangeFactor: number;
}

/**
 * Variable difficulty for one connection. Pure and clock-injected: the caller passes `nowMs`.
 * After each share (and on a periodic `review` for miners that went quiet) it may return a new
 * difficulty; the caller turns that into a new job (never a changed target on an old job).
 *
 * It measures work, not shares: each share counts with the difficulty it was credited at. A job
 * may ask less than this difficulty (capped at the network's) or be an older job at another one;
 * counted as whole shares, a capped miner's shares would look too fast retarget after retarget,
 * and the difficulty would climb to maxDifficulty while the jobs stayed capped.
 */
export class Vardiff {
  #difficultyValue: number;
  #windowStartMs: number;
  #sharesInWindow = 0;
  /** Summed difficulty of the window's shares. */
  #workInWindow = 0;
  readonly #config: VardiffConfig;

  constructor(config: VardiffConfig, startDifficulty: number, nowMs: number) {
    this.#config = config;
    this.#difficultyValue = clamp(startDifficulty, config.minDifficulty, config.maxDifficulty);
    this.#windowStartMs = nowMs;
  }

  get difficulty(): number {
    return this.#difficultyValue;
  }

  /**
   * Counts an accepted share credited at `shareDifficulty`; returns the new difficulty when a
   * retarget is due and needed.
   */
  recordShare(nowMs: number, shareDifficulty: number): number | undefined {
    this.#sharesInWindow += 1;
    this.#workInWindow += shareDifficulty;
    return this.review(nowMs);
  }

  /**
   * Reviews the window. Also call it periodically (e.g. every retarget interval) so that a miner
   * whose difficulty is far too high for it, and so sends no shares at all, is brought down.
   */
  review(nowMs: number): number | undefined {
    if (nowMs < this.#windowStartMs) {
      // The wall clock stepped back: start the window again now rather than wait out the step.
      this.#restartWindow(nowMs);
      return undefined;
    }
    const elapsedSec = (nowMs - this.#windowStartMs) / 1000;
    if (elapsedSec < this.#config.retargetIntervalSec) return undefined;
    // With no share in the window, assume one would have arrived right now: a safe lower bound
    // on the miner's speed, so the difficulty only falls as far as the evidence allows.
    const work = this.#sharesInWindow === 0 ? this.#difficultyValue : this.#workInWindow;
    // The time between shares at this difficulty, at the speed the window's work shows.
    const observedShareTimeSec = (elapsedSec * this.#difficultyValue) / work;
    const { targetShareTimeSec, variancePercent, maxChangeFactor } = this.#config;
    const deviation = Math.abs(observedShareTimeSec - targetShareTimeSec) / targetShareTimeSec;
    this.#restartWindow(nowMs);
    if (deviation * 100 <= variancePercent) return undefined;
    const factor = clamp(targetShareTimeSec / observedShareTimeSec, 1 / maxChangeFactor, maxChangeFactor);
    // Round towards the current value so that one step never exceeds maxChangeFactor.
    const scaled = this.#difficultyValue * factor;
    const rounded = factor > 1 ? Math.floor(scaled) : Math.ceil(scaled);
    const next = clamp(rounded, this.#config.minDifficulty, this.#config.maxDifficulty);
    if (next === this.#difficultyValue) return undefined;
    this.#difficultyValue = next;
    return next;
  }

  #restartWindow(nowMs: number): void {
    this.#windowStartMs = nowMs;
    this.#sharesInWindow = 0;
    this.#workInWindow = 0;
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
