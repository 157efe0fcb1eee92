import type { AcceptedShare } from '../share-ledger.js';
import type { CandidatePage, ShareWindowEnd, StoredBlockCandidate } from './stored-block.js';

export type { ShareWindowEnd } from './stored-block.js';

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
  /** False when another block, or none, holds its height now (the API then shows 0 confirmations). */
  readonly onMainChain: boolean;
  readonly note: string;
  readonly fencingToken?: string;
}

/** A refused block the unlocker found on the main chain at its height. */
export interface PromoteRefusedBlockRequest {
  readonly hash: string;
  /** The record's height. */
  readonly height: number;
  readonly fencingToken?: string;
}

/** A refused block the unlocker found off the chain: another block holds its height, deep enough. */
export interface NoteRefusalOffChainRequest {
  readonly hash: string;
  /** The main chain's block at that height. */
  readonly observedHash: string;
  readonly note: string;
  readonly fencingToken?: string;
}

/** A confirmed block's height now holds another block: a reorg deeper than confirmDepth. */
export interface FlagOrphanedAfterCreditRequest {
  readonly hash: string;
  readonly height: number;
  /** The main chain's block at that height now. */
  readonly observedHash: string;
  readonly reason: string;
  readonly fencingToken?: string;
}

/** A block flagged orphaned after credit whose own hash is back at its height (a later reorg). */
export interface NoteRestoredBlockRequest {
  readonly hash: string;
  readonly height: number;
  readonly fencingToken?: string;
}

/** A block decided orphaned that a reorg deeper than confirmDepth put back at its height. */
export interface ReinstateOrphanedBlockRequest {
  readonly hash: string;
  readonly height: number;
  /** The scheme credits pool blocks by their fixed PPLNS window (PROP merged the round instead). */
  readonly poolBlocksByWindow: boolean;
  /** The unlock note the pending block shows (why it is pending again). */
  readonly note: string;
  /** Its reward (the main chain's header): kept on the record when it is only noted. */
  readonly rewardAtomic: bigint;
  readonly fencingToken?: string;
}

/**
 * Why a block back on the main chain cannot be credited as at the find: its PROP round was merged
 * into the next one when it was orphaned (that round's block paid those shares), or no PPLNS
 * window was kept for it (orphaned by an older version).
 */
export type UncreditedReason = 'round-merged' | 'no-window';

/**
 * What reinstating did: pending again; noted only, once (not creditable as at the find: why); or
 * nothing (not orphaned, or noted before).
 */
export type ReinstateOutcome =
  | { readonly outcome: 'reinstated' }
  | { readonly outcome: 'noted'; readonly reason: UncreditedReason }
  | { readonly outcome: 'none' };

/** A block decided orphaned, as the orphan watch lists it. */
export interface OrphanedBlock {
  readonly hash: string;
  readonly height: number;
  /** Found back on the main chain and noted as not credited before: nothing more to do. */
  readonly notedBackOnChain: boolean;
}

/** An orphaned block back on the main chain that the ledger does not credit, as the report lists it. */
export interface UncreditedBackOnChainBlock {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  readonly reason: UncreditedReason;
  readonly backOnChainAtMs: number;
}

/** The reorg audit is due (claimed, and its time kept) if the last began `intervalMs` before `nowMs`. */
export interface ClaimReorgAuditRequest {
  readonly nowMs: number;
  readonly intervalMs: number;
  readonly fencingToken?: string;
}

/**
 * A settled block a later reorg restored is replaced at its height again (yet another reorg),
 * while the watch still checks it.
 */
export interface NoteReorphanedBlockRequest {
  readonly hash: string;
  readonly height: number;
  /** The main chain's block at that height now. */
  readonly observedHash: string;
  readonly reason: string;
  readonly fencingToken?: string;
}

/**
 * What note_reorphaned_block did: a restore undone, its settlement standing again (`absorbed`,
 * `clawed-back`: no credit back owed any more), a credited-back block flagged again for the
 * operator (`reflagged`), or nothing (`none`).
 */
export type ReorphanedOutcome = 'absorbed' | 'clawed-back' | 'reflagged' | 'none';

/**
 * Where a credited block stands after a deep reorg: `credited` (never flagged, or unflagged since),
 * `flagged` (orphaned after credit, not settled), `settled` (absorbed or clawed back by the
 * operator), `settled-restored` (settled, then a later reorg put it back: still watched, as a
 * further reorg may take it again).
 */
export type AfterCreditState = 'credited' | 'flagged' | 'settled' | 'settled-restored';

/** A confirmed block the reorg watch checks: what it was credited with, and its state. */
export interface CreditedBlock {
  readonly hash: string;
  readonly height: number;
  readonly rewardAtomic: bigint;
  readonly state: AfterCreditState;
}

/** What note_restored_block did: unflagged an unsettled block, noted a settled one, or nothing. */
export type RestoredOutcome = 'unflagged' | 'absorbed' | 'clawed-back' | 'none';

/** `applied` false when the block was no longer pending (another run decided it first). */
export type CreditOutcome = { readonly applied: true } | { readonly applied: false; readonly status: string };

export interface ShareWindow {
  /** Pool shares (solo shares skipped), newest first, starting with the block's own share. */
  readonly shares: readonly AcceptedShare[];
  /** Sum of `shares` difficulties; may pass the requested amount by the last share's part. */
  readonly windowDifficulty: bigint;
  readonly endReason: ShareWindowEnd;
}

export interface FixBlockWindowRequest {
  readonly hash: string;
  /** address -> counted difficulty, every value > 0. */
  readonly weights: ReadonlyMap<string, bigint>;
  readonly windowDifficulty: bigint;
  readonly countedDifficulty: bigint;
  readonly shareCount: number;
  readonly endReason: ShareWindowEnd;
  readonly fencingToken?: string;
}

/**
 * What the window fixer reads and writes: the pool blocks whose PPLNS window is still to be fixed
 * (while there is one, the share stream is not trimmed), the shares to read it from, and the write
 * that fixes it. Fenced like the unlocker's writes.
 */
export interface BlockWindowLedger {
  /** Blocks whose window is not fixed yet, lowest height first, at most `limit`. */
  listWindowPending(limit: number): Promise<string[]>;
  getBlockCandidate(hash: string): Promise<StoredBlockCandidate | null>;
  /** Pool shares from `entryId` back until their difficulty reaches `untilDifficulty`. */
  readSharesBackFrom(entryId: string, untilDifficulty: bigint): Promise<ShareWindow>;
  /**
   * Stores the weights and the summary and takes the block out of the pending set, in one step,
   * only while it is in the set and pending: `applied` false when another fixer came first.
   */
  fixBlockWindow(request: FixBlockWindowRequest): Promise<{ readonly applied: boolean }>;
}

/**
 * What the block unlocker reads and writes (src/store on Redis): the candidates, the weights their
 * schemes split by, and the three decisions, each one atomic and idempotent by block hash; and the
 * refused blocks whose refusal was never explained, with the two ways the chain settles them.
 * Writes with a fencing token are refused (an error with `code` FENCED) unless it is the leader's.
 */
export interface UnlockLedger {
  /** Candidates (pending and later states), highest height first, or lowest first with `lowestFirst`. */
  listBlockCandidates(page: CandidatePage): Promise<StoredBlockCandidate[]>;
  /** address -> difficulty of the round the block closed (PROP). */
  getRoundContributions(round: { height: number; hash: string }): Promise<Map<string, bigint>>;
  /** address -> counted difficulty of the block's fixed PPLNS window (empty when none). */
  getBlockWindow(hash: string): Promise<Map<string, bigint>>;
  /** True while the block's window waits to be fixed. */
  isWindowPending(hash: string): Promise<boolean>;
  /** PPLNS of a block recorded before windows were fixed at find time: the read-back at unlock. */
  readSharesBackFrom(entryId: string, untilDifficulty: bigint): Promise<ShareWindow>;
  /** Credits every miner and confirms the block, in one step. */
  creditBlock(request: CreditBlockRequest): Promise<CreditOutcome>;
  orphanBlock(request: OrphanBlockRequest): Promise<CreditOutcome>;
  /** Records how deep a still-pending block is (for the API). */
  observeBlock(request: ObserveBlockRequest): Promise<void>;
  /**
   * Refused blocks (status 'rejected') that may be on the chain and that the unlocker has not
   * found off the chain yet: those whose refusal no diagnosis explained (reason `unknown`, or none:
   * the process stopped first) and stale ones (`stale-tip`: fuegod keeps a valid stale block as an
   * alternative block, which a reorg can put on the main chain). The newest `limit` refused blocks
   * are looked at, highest height first.
   */
  listRefusalsToRecheck(limit: number): Promise<StoredBlockCandidate[]>;
  /**
   * What the stratum side's diagnosis does for a refused block found on the chain (reason
   * `already-on-chain`): promoted to a pending candidate that closes its pool round, in one step.
   * `promoted` false when the record was no longer a refused one.
   */
  promoteRefusedBlock(request: PromoteRefusedBlockRequest): Promise<{ readonly promoted: boolean }>;
  /** Notes that a refused block is not on the chain, so it is not asked about again. */
  noteRefusalOffChain(request: NoteRefusalOffChainRequest): Promise<void>;
  /**
   * Confirmed blocks at `fromHeight` and above, with their state after credit, highest first, at
   * most `limit`: what the reorg watch checks.
   */
  listCreditedFrom(fromHeight: number, limit: number): Promise<CreditedBlock[]>;
  /**
   * Confirmed blocks from `fromHeight` to `toHeight` (both included), highest first, a page at a
   * time (`limit` after the first `offset`): what the reorg audit checks below the watch window.
   */
  listCreditedBetween(
    fromHeight: number,
    toHeight: number,
    page: { readonly offset: number; readonly limit: number },
  ): Promise<CreditedBlock[]>;
  /** Flags a confirmed block replaced at its height; `applied` false when flagged already (or not confirmed). */
  flagOrphanedAfterCredit(request: FlagOrphanedAfterCreditRequest): Promise<{ readonly applied: boolean }>;
  /**
   * A flagged block is back at its height: unflagged when not settled (`unflagged`), noted once
   * when settled (its settlement; nothing is re-credited), `none` when there was nothing to do.
   */
  noteRestoredBlock(request: NoteRestoredBlockRequest): Promise<RestoredOutcome>;
  /**
   * A settled block noted restored is replaced again: the restore is undone (its settlement stands
   * again) or, when it was credited back since, it is flagged again; `none` when nothing was to do.
   */
  noteReorphanedBlock(request: NoteReorphanedBlockRequest): Promise<ReorphanedOutcome>;
  /**
   * When the reorg audit last began is kept with the ledger (so it holds across leaders): true, and
   * `nowMs` kept, when the audit is due; false when the last began less than `intervalMs` ago.
   */
  claimReorgAudit(request: ClaimReorgAuditRequest): Promise<boolean>;
  /** Blocks decided orphaned from `fromHeight` up to `toHeight` (both included), highest first, at most `limit`. */
  listOrphanedBetween(fromHeight: number, toHeight: number, limit: number): Promise<OrphanedBlock[]>;
  /**
   * An orphaned block the main chain holds again: pending again when it can be credited as at the
   * find (then decided at depth like any candidate), else noted once; fenced.
   */
  reinstateOrphanedBlock(request: ReinstateOrphanedBlockRequest): Promise<ReinstateOutcome>;
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
