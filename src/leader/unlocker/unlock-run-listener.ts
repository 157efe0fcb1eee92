import type { StoredBlockCandidate } from '../../model/blocks/stored-block.js';

/** A refused block a run found on the main chain and promoted to a pending candidate. */
export type PromotedRefusal = Pick<
  StoredBlockCandidate,
  'hash' | 'height' | 'finderAddress' | 'solo' | 'timestampMs'
>;

/** What a caller of one run hears while it runs. */
export interface UnlockRunListener {
  /**
   * A refused block this run promoted, told at once (a later failure of the run cannot lose it),
   * and only when this run's script did the promotion: a block promoted already, by the stratum
   * side or an earlier run, is not told again. Must not throw.
   */
  readonly onPromoted?: (block: PromotedRefusal) => void;
}
