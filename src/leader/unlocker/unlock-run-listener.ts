import type { StoredBlockCandidate } from '../../model/blocks/stored-block.js';
import type {
  ReorphanedOutcome,
  RestoredOutcome,
  UncreditedReason,
} from '../../model/blocks/unlock-ledger.js';

/** A refused block a run found on the main chain and promoted to a pending candidate. */
export type PromotedRefusal = Pick<
  StoredBlockCandidate,
  'hash' | 'height' | 'finderAddress' | 'solo' | 'timestampMs'
>;

/** A block orphaned after credit whose own hash a later reorg put back at its height, as noted. */
export interface RestoredBlock {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  /** unflagged: it was not settled; absorbed / clawed-back: its settlement (a clawback is owed back). */
  readonly outcome: Exclude<RestoredOutcome, 'none'>;
}

/**
 * A settled block noted restored (a later reorg put it back) that another reorg replaced again
 * before any credit back: its restore undone, its settlement standing again.
 */
export interface ReorphanedBlock {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  /** absorbed: the loss stands again; clawed-back: no credit back is owed any more. */
  readonly outcome: Extract<ReorphanedOutcome, 'absorbed' | 'clawed-back'>;
}

/**
 * A block decided orphaned that a deeper reorg put back on the main chain and that the ledger does
 * not credit (noted once): its reward is in the pool's wallet, owed to nobody.
 */
export interface UncreditedBackOnChain {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  /** round-merged: PROP merged its round into the next one (paid by that block); no-window: none kept. */
  readonly reason: UncreditedReason;
}

/** What a caller of one run hears while it runs. */
export interface UnlockRunListener {
  /**
   * A refused block this run promoted, told at once (a later failure of the run cannot lose it),
   * and only when this run's script did the promotion: a block promoted already, by the stratum
   * side or an earlier run, is not told again. Must not throw.
   */
  readonly onPromoted?: (block: PromotedRefusal) => void;
  /**
   * A block orphaned after credit the reorg watch found back on the main chain and noted (once per
   * restore: only when this run's script noted it). Must not throw.
   */
  readonly onRestored?: (block: RestoredBlock) => void;
  /**
   * A restored settled block the reorg watch found replaced again and whose restore it undid (once
   * per undoing: only when this run's script did it). Not for one credited back since: that one is
   * flagged again, a decision of the run. Must not throw.
   */
  readonly onReorphaned?: (block: ReorphanedBlock) => void;
  /**
   * An orphaned block the orphan watch found back on the main chain and could not credit as at the
   * find (once per block: only when this run's script noted it, which it does once ever). Must
   * not throw.
   */
  readonly onBackUncredited?: (block: UncreditedBackOnChain) => void;
}
