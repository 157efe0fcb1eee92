import type { BlockRefusalReason } from '../block-refusal-reason.js';
import type { BlockCandidate } from '../share-ledger.js';

/**
 * pending: waiting for the unlocker; rejected: submitblock said no (it closed no round);
 * confirmed: credited; orphaned: another block holds its height.
 */
export type StoredBlockStatus = 'pending' | 'rejected' | 'confirmed' | 'orphaned';

/**
 * Why a PPLNS read-back stopped: the window is filled; the stream holds nothing older (a young
 * pool); it holds nothing older because entries were trimmed (the window lost shares); or the
 * safety bound on the number of shares was hit.
 */
export type ShareWindowEnd = 'filled' | 'stream-start' | 'trimmed' | 'max-shares';

/** A pool block's PPLNS window as it was fixed soon after the find (the weights are kept apart). */
export interface BlockWindowSummary {
  /** What the window should hold: factor × the block's network difficulty. */
  readonly windowDifficulty: bigint;
  /** What the shares read back filled of it (the sum of the weights). */
  readonly countedDifficulty: bigint;
  readonly shareCount: number;
  readonly endReason: ShareWindowEnd;
  readonly fixedAtMs: number;
}

export interface RoundSummary {
  readonly startedAtMs: number;
  readonly totalDifficulty: bigint;
  readonly shareCount: number;
}

/** A block the pool found, as the ledger keeps it. `round` is null for a solo or rejected block. */
export interface StoredBlockCandidate {
  readonly height: number;
  readonly hash: string;
  readonly prevHash: string;
  readonly networkDifficulty: bigint;
  readonly finderAddress: string;
  readonly finderWorker: string;
  /** Stream id of the solving share: where PPLNS starts reading back. */
  readonly shareEntryId: string;
  readonly shareDifficulty: number;
  readonly solo: boolean;
  readonly submitResult: BlockCandidate['submitResult'];
  readonly submitError: string | null;
  /** The block as submitted (hex); null in records written before blobs were kept. */
  readonly blobHex: string | null;
  /** Why submitblock refused it, found after the refusal; null when not refused or not known yet. */
  readonly refusalReason: BlockRefusalReason | null;
  readonly timestampMs: number;
  readonly status: StoredBlockStatus;
  readonly round: RoundSummary | null;
  /** null until the leader fixed it, and always for a solo, a rejected or an older block. */
  readonly window: BlockWindowSummary | null;
  /** The unlocker's last word on a pending block (depth, or why it waits); null before it looked. */
  readonly unlockNote: string | null;
  /**
   * True when the unlocker last found another block, or none, at its height (a reorg it may still
   * undo): a pending block then has no confirmations. False before it looked.
   */
  readonly offMainChain: boolean;
  /**
   * True when the block was confirmed (credited) and a later reorg, deeper than confirmDepth, put
   * another block at its height: its credits stand, for the operator to settle.
   */
  readonly orphanedAfterCredit: boolean;
}

/** A page of the block candidates, highest height first unless `lowestFirst`. */
export interface CandidatePage {
  readonly offset: number;
  readonly limit: number;
  readonly lowestFirst?: boolean;
}
