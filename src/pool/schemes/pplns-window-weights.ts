import { SchemeError } from './scheme-error.js';
import type { ShareRecord } from './types.js';
import { assertContribution } from './validate-inputs.js';

/** Who counts for how much in one PPLNS window: what a block's split divides the miners' part by. */
export interface PplnsWindowWeights {
  /** Counted difficulty per address, every weight > 0, in the order addresses were first met. */
  readonly weights: Map<string, bigint>;
  /** Sum of `weights`: the window difficulty, or less when the shares did not fill it. */
  readonly countedDifficulty: bigint;
  /** Shares walked (each counted, the last one maybe partly). */
  readonly shareCount: number;
}

/**
 * The PPLNS walk. From the newest share back, each share counts with its full difficulty until
 * the running sum reaches `windowDifficulty`; the share that crosses the boundary counts only
 * with the part that still fits (window − sum so far, exact integer), and older shares count not
 * at all. A share that fills the window exactly counts in full and ends it. Shares beyond the
 * window are never pulled from the iterable, nor validated.
 *
 * @throws SchemeError INVALID_WINDOW (window ≤ 0), INVALID_SHARE (a counted share's address or
 *   difficulty).
 */
export function pplnsWindowWeights(
  sharesNewestFirst: Iterable<ShareRecord>,
  windowDifficulty: bigint,
): PplnsWindowWeights {
  if (typeof windowDifficulty !== 'bigint' || windowDifficulty <= 0n) {
    throw new SchemeError('INVALID_WINDOW', 'windowDifficulty must be a bigint > 0', {
      windowDifficulty: String(windowDifficulty),
    });
  }
  // One mutable cell per address: a single map lookup per share (a million shares is a normal window).
  const cells = new Map<string, { weight: bigint }>();
  let counted = 0n;
  let index = 0;
  for (const share of sharesNewestFirst) {
    const { address, difficulty } = share;
    assertContribution(address, difficulty, index);
    const filled = counted + difficulty;
    // The share crossing the boundary counts only with the room left.
    const weight = filled <= windowDifficulty ? difficulty : windowDifficulty - counted;
    const cell = cells.get(address);
    if (cell === undefined) cells.set(address, { weight });
    else cell.weight += weight;
    counted += weight;
    index += 1;
    // Stop before pulling the next share: a lazy history is read no further than the window.
    if (counted === windowDifficulty) break;
  }

  const weights = new Map<string, bigint>();
  for (const [address, cell] of cells) weights.set(address, cell.weight);
  return { weights, countedDifficulty: counted, shareCount: index };
}
