/**
 * Shapes shared by the payment schemes. Money is integer atomic units (1 XFG = 10^7) as bigint;
 * difficulty is bigint too because a PPLNS window of N × network difficulty, summed over a
 * million shares, passes 2^53. Nothing here is a float.
 */

/** One accepted share as the ledger hands it to a scheme. */
export interface ShareRecord {
  /** Payout address the share is credited to (standard or integrated, as the miner logged in). */
  readonly address: string;
  /** Informational only: credits are per address, never per worker. */
  readonly worker?: string;
  /** The difficulty the share was credited at; must be > 0. */
  readonly difficulty: bigint;
  /** Informational only: schemes trust the order the ledger gives, not clocks of several nodes. */
  readonly timestampMs: number;
}

/**
 * What the pool keeps and what the finder gets on top. Both are whole basis points
 * (1 bp = 0.01 %, 10000 bp = 100 %) so that every amount is computed by integer division.
 */
export interface FeePolicy {
  /** Share of the block reward kept by the pool, 0..10000. */
  readonly poolFeeBasisPoints: number;
  /** Share of the miners' part (reward − pool fee) paid to the block finder first, 0..10000. */
  readonly finderBonusBasisPoints: number;
  /**
   * Where the unlocker credits `poolFee`. Schemes never put the fee into `credits`; without a fee
   * address the fee simply stays in the pool wallet.
   */
  readonly feeAddress?: string;
}

/**
 * What to do when no share counts (a round whose share records were lost, or a PPLNS list that was
 * trimmed to nothing). 'credit-finder' (the default) gives the whole miners' part to the finder:
 * the finder's own share solved the block, so it is the one contribution known to exist, and the
 * money stays with miners rather than drifting to the pool. 'reject' throws EMPTY_ROUND so the
 * caller can hold the block for an operator instead.
 */
export type EmptyRoundPolicy = 'credit-finder' | 'reject';

/** The exact outcome of paying one confirmed block. `totalCredited + poolFee === reward`, always. */
export interface PaymentSplit {
  /**
   * Atomic units per address, finder bonus included, only strictly positive amounts, keys in
   * ascending code-unit order of the address (the same on every node, so it can be written as is).
   */
  readonly credits: ReadonlyMap<string, bigint>;
  /** floor(reward × poolFeeBasisPoints / 10000): rounding down leaves the odd unit to miners. */
  readonly poolFee: bigint;
  /** floor((reward − poolFee) × finderBonusBasisPoints / 10000); already inside `credits`. 0n for SOLO. */
  readonly finderBonus: bigint;
  readonly finder: string;
  /** Sum of `credits` = reward − poolFee. */
  readonly totalCredited: bigint;
  /** The difficulty the miners' part was divided by (PPLNS: min(window, shares); 0n for SOLO or an empty round). */
  readonly countedDifficulty: bigint;
  /** True when no share counted and the empty-round policy credited the finder. */
  readonly emptyRound: boolean;
}
