/**
 * What an unlock run decided about a block. 'not-on-main-chain': another block holds the height,
 * not yet confirmDepth deep (a reorg may bring this one back); 'above-tip': the chain is shorter
 * than the height. Both stay pending. 'orphaned-after-credit': the reorg watch found a credited
 * block replaced at its height (flagged, its credits left to the operator).
 */
export type CandidateOutcome =
  | 'confirmed'
  | 'orphaned'
  | 'pending'
  | 'not-on-main-chain'
  | 'above-tip'
  | 'already-decided'
  | 'orphaned-after-credit'
  | 'error';

export interface CandidateDecision {
  readonly hash: string;
  readonly height: number;
  readonly outcome: CandidateOutcome;
  readonly detail: string;
  readonly rewardAtomic?: bigint;
}

export interface UnlockerRunSummary {
  readonly skipped: 'not-leader' | null;
  readonly decisions: readonly CandidateDecision[];
}
