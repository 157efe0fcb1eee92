import { assembleSplit } from './assemble-split.js';
import { SchemeError } from './scheme-error.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit, ShareRecord } from './types.js';
import { assertContribution, assertFeePolicy, assertFinder, assertReward } from './validate-inputs.js';

export interface PplnsSplitInput {
  /** Block reward in atomic units (coinbase outputs, fees included). */
  readonly reward: bigint;
  /**
   * PPLNS (pool) shares, newest first, in the ledger's order (timestamps are not consulted: nodes'
   * clocks differ). SOLO shares must already be left out by the caller. Read only until the window
   * is full, so a lazy iterable over a longer history is fine.
   */
  readonly sharesNewestFirst: Iterable<ShareRecord>;
  /** Difficulty the window holds, N × network difficulty (see `pplnsWindowDifficulty`). */
  readonly windowDifficulty: bigint;
  /** Address whose share solved the block. */
  readonly finder: string;
  readonly fee: FeePolicy;
  /** Default 'credit-finder'; see EmptyRoundPolicy. */
  readonly emptyRound?: EmptyRoundPolicy;
}

/**
 * Pay-per-last-N-shares. Walking from the newest share back, each share counts with its full
 * difficulty until the running sum reaches `windowDifficulty`; the share that crosses the boundary
 * counts only with the part that still fits (window − sum so far, exact integer), and older shares
 * count not at all. A share that fills the window exactly counts in full and ends it.
 *
 * When the recorded shares do not fill the window (a young pool, or a history trimmed shorter), the
 * miners' part is divided among what there is, so each counted unit of difficulty is worth more;
 * nothing is held back for the pool. With no share at all, see `emptyRound`.
 *
 * Only the counted shares are validated: shares beyond the window are never read.
 */
export function pplnsSplit(input: PplnsSplitInput): PaymentSplit {
  const { reward, sharesNewestFirst, windowDifficulty, finder, fee } = input;
  assertReward(reward);
  assertFeePolicy(fee);
  assertFinder(finder);
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
  return assembleSplit({ reward, fee, finder, weights, emptyRound: input.emptyRound ?? 'credit-finder' });
}
