import type { BlockRefusalReason } from './block-refusal-reason.js';

/**
 * The seam between the share pipeline and storage (src/store implements it on Redis). Every
 * method resolves only once the data is durable: a miner is told "OK" after that, never before.
 */

export interface AcceptedShare {
  /** Payout address: standard, or integrated (payment id kept in the address). */
  readonly address: string;
  readonly worker: string;
  /** The job difficulty the share was credited at (the pool's, not the miner's rounded one). */
  readonly difficulty: number;
  /** Height of the template the share was mined on. */
  readonly height: number;
  readonly timestampMs: number;
  /** Mined on a solo port or with a `solo:` login: paid by the SOLO scheme. */
  readonly solo: boolean;
  /** Accepted during the grace window after a new block: credited, never submitted as a block. */
  readonly stale: boolean;
}

/** What a miner has submitted, as the share scripts sum it (difficulty, solo shares included). */
export interface MinerShareTotals {
  /** Every accepted share's difficulty since the pool first saw the miner (solo too). */
  readonly difficultyTotal: bigint;
  /** Its pool shares' difficulty in the open round (0 right after a pool block closed it). */
  readonly roundDifficulty: bigint;
  /** Worker name -> its accepted shares' difficulty, for the names asked about (0 when none). */
  readonly workers: ReadonlyMap<string, bigint>;
}

export interface BlockCandidate {
  readonly height: number;
  /** Block id (hex) computed by the pool from the submitted blob. */
  readonly hash: string;
  readonly prevHash: string;
  readonly networkDifficulty: bigint;
  /** The share that solved the block; it is also recorded as an ordinary share. */
  readonly share: AcceptedShare;
  /** What the daemon said to submitblock. */
  readonly submitResult: 'accepted' | 'rejected' | 'error';
  readonly submitError?: string;
  /** The block as submitted (hex): kept so that a refused or lost block can be examined or resubmitted. */
  readonly blobHex: string;
  readonly timestampMs: number;
}

/**
 * What recording a refusal did: 'recorded' the reason; 'promoted' the block, found on the chain
 * after all (`already-on-chain`), to a pending candidate like an accepted one; 'unchanged' when the
 * record was not a rejected one (accepted earlier, promoted already, or missing).
 */
export type RefusalRecordOutcome = 'recorded' | 'promoted' | 'unchanged';

export interface ShareLedger {
  recordShare(share: AcceptedShare): Promise<void>;
  /** Records the share and the candidate together, atomically, and closes the round it ends. */
  recordBlockCandidate(candidate: BlockCandidate): Promise<void>;
  /**
   * Adds why the daemon refused a recorded candidate (a record whose submitResult is not
   * 'rejected' is left as it is). A block that is on the chain after all (`already-on-chain`) is
   * real, so it becomes a pending candidate and closes the round, as if submitblock had said yes;
   * doing so again changes nothing. A refusal left `unknown` (or never diagnosed) is checked
   * against the chain by the leader's unlocker, which promotes it the same way if the chain holds it.
   */
  recordBlockRefusal(candidate: BlockCandidate, reason: BlockRefusalReason): Promise<RefusalRecordOutcome>;
  /**
   * Says the block's `block-found` is published: a block recorded found (or promoted) is marked
   * unannounced in that same write, and the leader publishes what is still marked a while later
   * (its finder died in between). Never rejects: a failure is logged and only repeats the
   * notification. Absent: the ledger keeps no such mark.
   */
  markBlockAnnounced?(hash: string): Promise<void>;
}
