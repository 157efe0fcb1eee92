/** See isDecisive: the window's deviation is acted on once chance explains it less than e^-3. */
const DECISIVE_EVIDENCE = 3;
/** A window within the band with this many shares' worth of work starts again (settled). */
const SETTLED_SHARES = 16;
/**
 * A window that expected this many shares is acted on whatever its evidence (±18 % at 1 σ); one
 * that holds this many is acted on even before retargetIntervalSec.
 */
const FULL_WINDOW_SHARES = 32;

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
  #fasterThanMax = false;
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
   * Its last retarget wanted more than maxDifficulty: the miner is faster than its difficulty
   * says, by how much is unknown. Cleared by a retarget within the range or a window within the
   * band.
   */
  get fasterThanMax(): boolean {
    return this.#fasterThanMax;
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
   *
   * Shares arrive at random (a Poisson process), and a retarget interval holds only a few of them:
   * judged on one interval, a miner already at its ideal difficulty would look 30 % off in most
   * of them and be retargeted every minute or two. So the window grows, interval after interval,
   * until it shows a deviation beyond `variancePercent` that chance alone would hardly produce
   * (decisive), or enough shares that the miner is known to be within it (settled).
   */
  review(nowMs: number): number | undefined {
    if (nowMs < this.#windowStartMs) {
      // A clock that went back (the pool passes a monotonic one; a caller might not): start the
      // window again now rather than wait out the step.
      this.#restartWindow(nowMs);
      return undefined;
    }
    const elapsedSec = (nowMs - this.#windowStartMs) / 1000;
    const { targetShareTimeSec, variancePercent, maxChangeFactor } = this.#config;
    // Shares the window would hold at the target time, and the window's work in shares at this
    // difficulty.
    const expected = elapsedSec / targetShareTimeSec;
    const seen = this.#workInWindow / this.#difficultyValue;
    // A full window's worth of shares before the interval is up (a miner 16x too fast at the
    // defaults) is acted on at once: one step per interval left a GPU rig at a port's start
    // difficulty flooding the verifier with thousands of shares for minutes.
    if (elapsedSec < this.#config.retargetIntervalSec && seen < FULL_WINDOW_SHARES) return undefined;
    // With no share in the window, assume one would have arrived right now: a safe lower bound
    // on the miner's speed, so the difficulty only falls as far as the evidence allows.
    const observedShareTimeSec = elapsedSec / (this.#sharesInWindow === 0 ? 1 : seen);
    const deviation = Math.abs(observedShareTimeSec - targetShareTimeSec) / targetShareTimeSec;
    if (deviation * 100 <= variancePercent) {
      this.#fasterThanMax = false;
      if (seen >= SETTLED_SHARES) this.#restartWindow(nowMs);
      return undefined;
    }
    if (!isDecisive(expected, seen) && expected < FULL_WINDOW_SHARES) return undefined;
    this.#restartWindow(nowMs);
    const factor = clamp(targetShareTimeSec / observedShareTimeSec, 1 / maxChangeFactor, maxChangeFactor);
    // Round towards the current value so that one step never exceeds maxChangeFactor.
    const scaled = this.#difficultyValue * factor;
    const rounded = factor > 1 ? Math.floor(scaled) : Math.ceil(scaled);
    this.#fasterThanMax = rounded > this.#config.maxDifficulty;
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

/**
 * Whether `seen` shares where `expected` were due is a deviation chance alone would produce less
 * often than e^-DECISIVE_EVIDENCE (~5 %). Chernoff's bound on a Poisson tail: P ≤ e^(−λ·h(k/λ))
 * with h(x) = 1 − x + x·ln x, so no share at all is decisive after 3 expected ones, twice as
 * fast after ~8, half as fast after ~20.
 */
function isDecisive(expected: number, seen: number): boolean {
  if (expected <= 0) return false;
  const x = seen / expected;
  const h = x === 0 ? 1 : 1 - x + x * Math.log(x);
  return expected * h >= DECISIVE_EVIDENCE;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
