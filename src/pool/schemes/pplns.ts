import { assembleSplit } from './assemble-split.js';
import { pplnsWindowWeights } from './pplns-window-weights.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit, ShareRecord } from './types.js';
import { assertFeePolicy, assertFinder, assertReward } from './validate-inputs.js';

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
  /** payments.emptyRound; the config's default when not given. See EmptyRoundPolicy. */
  readonly emptyRound?: EmptyRoundPolicy;
}

/**
 * Pay-per-last-N-shares: the miners' part divided by the window's weights (`pplnsWindowWeights`:
 * from the newest share back until `windowDifficulty`, the crossing share counted only with the
 * room left).
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
  const { weights } = pplnsWindowWeights(sharesNewestFirst, windowDifficulty);
  return assembleSplit({ reward, fee, finder, weights, emptyRound: input.emptyRound });
}
