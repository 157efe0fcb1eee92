import type { AcceptedShare } from '../share-ledger.js';
import type { StoredBlockCandidate } from './stored-block.js';

export interface BlockCredit {
  readonly address: string;
  readonly amountAtomic: bigint;
  readonly reason: 'block-credit' | 'pool-fee';
}

export interface CreditBlockRequest {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  readonly poolFeeAtomic: bigint;
  /** The part of the pool fee that stays in the wallet (poolFee when no fee address). */
  readonly poolFeeKeptAtomic: bigint;
  readonly finderBonusAtomic: bigint;
  readonly scheme: string;
  readonly depth: number;
  readonly credits: readonly BlockCredit[];
  readonly fencingToken?: string;
}

export interface OrphanBlockRequest {
  readonly hash: string;
  readonly height: number;
  /** Merge the round the block closed back into the open round (PROP). */
  readonly mergeRound: boolean;
  readonly reason: string;
  /** The hash seen at that height ("" for none). */
  readonly observedHash: string;
  readonly fencingToken?: string;
}

export interface ObserveBlockRequest {
  readonly hash: string;
  readonly confirmations: number;
  readonly note: string;
  readonly fencingToken?: string;
}

/** `applied` false when the block was no longer pending (another run decided it first). */
export type CreditOutcome = { readonly applied: true } | { readonly applied: false; readonly status: string };

/**
 * Why a PPLNS read-back stopped: the window is filled; the stream holds nothing older (a young
 * pool); it holds nothing older because entries were trimmed (the window lost shares); or the
 * safety bound on the number of shares was hit.
 */
export type ShareWindowEnd = 'filled' | 'stream-start' | 'trimmed' | 'max-shares';

export interface ShareWindow {
  /** Pool shares (solo shares skipped), newest first, starting with the block's own share. */
  readonly shares: readonly AcceptedShare[];
  /** Sum of `shares` difficulties; may pass the requested amount by the last share's part. */
  readonly windowDifficulty: bigint;
  readonly endReason: ShareWindowEnd;
}

/**
 * What the block unlocker reads and writes (src/store on Redis): the candidates, the shares their
 * schemes split by, and the three decisions, each one atomic and idempotent by block hash.
 * Writes with a fencing token are refused (an error with `code` FENCED) unless it is the leader's.
 */
export interface UnlockLedger {
  /** Candidates (pending and later states), highest height first. */
  listBlockCandidates(page: { offset: number; limit: number }): Promise<StoredBlockCandidate[]>;
  /** address -> difficulty of the round the block closed (PROP). */
  getRoundContributions(round: { height: number; hash: string }): Promise<Map<string, bigint>>;
  /** PPLNS: pool shares from `entryId` back until their difficulty reaches `untilDifficulty`. */
  readSharesBackFrom(entryId: string, untilDifficulty: bigint): Promise<ShareWindow>;
  /** Credits every miner and confirms the block, in one step. */
  creditBlock(request: CreditBlockRequest): Promise<CreditOutcome>;
  orphanBlock(request: OrphanBlockRequest): Promise<CreditOutcome>;
  /** Records how deep a still-pending block is (for the API). */
  observeBlock(request: ObserveBlockRequest): Promise<void>;
}

/**
 * The miners' "pending" estimate of blocks not yet confirmed: statistics, not money. Written once
 * per block by the unlocker, removed with the block's decision.
 */
export interface PendingCreditEstimates {
  has(blockHash: string): Promise<boolean>;
  write(blockHash: string, credits: ReadonlyMap<string, bigint>, ttlMs: number): Promise<void>;
  remove(blockHash: string): Promise<void>;
}
