import type { BlockRefusalReason } from '../block-refusal.js';
import type { BlockCandidate } from '../share-ledger.js';

/**
 * pending: waiting for the unlocker; rejected: submitblock said no (it closed no round);
 * confirmed: credited; orphaned: another block holds its height.
 */
export type StoredBlockStatus = 'pending' | 'rejected' | 'confirmed' | 'orphaned';

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
}
