import type { BlockRefusalReason } from '../model/block-refusal-reason.js';
import type { ShareOutcome } from './share-processor.js';
import type { StratumErrorCode } from './stratum-errors.js';

/** Counters for the metrics endpoint; a snapshot, safe to serialise. */
export interface PoolBackendMetrics {
  readonly sessions: number;
  readonly logins: number;
  readonly loginsRefused: Readonly<Partial<Record<StratumErrorCode, number>>>;
  readonly sharesAccepted: number;
  /** Of sharesAccepted: credited in the grace window after a new block. */
  readonly sharesStale: number;
  readonly sharesRejected: Readonly<Partial<Record<StratumErrorCode, number>>>;
  readonly blocksFound: number;
  readonly blocksAccepted: number;
  readonly blocksRejected: number;
  /** Rejected blocks by the reason found afterwards (counted once the diagnosis is done). */
  readonly blocksRefused: Readonly<Partial<Record<BlockRefusalReason, number>>>;
  readonly blockSubmitErrors: number;
  readonly jobsIssued: number;
  /** Of jobsIssued: on a blob shared with other sessions (stratum.sharedJobs). */
  readonly jobsIssuedShared: number;
  readonly bansIssued: number;
  /** Duration of the last template broadcast to all sessions. */
  readonly lastBroadcastMs: number;
}

function increment<K extends string>(counts: Partial<Record<K, number>>, key: K): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** What the pool core counts: logins, shares and blocks by outcome, jobs, bans, broadcasts. */
export class PoolCounters {
  readonly #counts = {
    logins: 0,
    sharesAccepted: 0,
    sharesStale: 0,
    blocksFound: 0,
    blocksAccepted: 0,
    blocksRejected: 0,
    blockSubmitErrors: 0,
    jobsIssued: 0,
    jobsIssuedShared: 0,
    bansIssued: 0,
    lastBroadcastMs: 0,
  };
  readonly #loginsRefused: Partial<Record<StratumErrorCode, number>> = {};
  readonly #sharesRejected: Partial<Record<StratumErrorCode, number>> = {};
  readonly #blocksRefused: Partial<Record<BlockRefusalReason, number>> = {};

  login(): void {
    this.#counts.logins++;
  }

  loginRefused(code: StratumErrorCode): void {
    increment(this.#loginsRefused, code);
  }

  shareRejected(code: StratumErrorCode): void {
    increment(this.#sharesRejected, code);
  }

  /** An accepted share, and the block it solved if any, by the daemon's answer to submitblock. */
  shareAccepted(outcome: ShareOutcome): void {
    this.#counts.sharesAccepted++;
    if (outcome.share.stale) this.#counts.sharesStale++;
    if (outcome.block === undefined) return;
    this.#counts.blocksFound++;
    if (outcome.block.submitResult === 'accepted') this.#counts.blocksAccepted++;
    else if (outcome.block.submitResult === 'rejected') this.#counts.blocksRejected++;
    else this.#counts.blockSubmitErrors++;
  }

  blockRefused(reason: BlockRefusalReason): void {
    increment(this.#blocksRefused, reason);
  }

  jobIssued(shared: boolean): void {
    this.#counts.jobsIssued++;
    if (shared) this.#counts.jobsIssuedShared++;
  }

  banIssued(): void {
    this.#counts.bansIssued++;
  }

  broadcastDone(durationMs: number): void {
    this.#counts.lastBroadcastMs = durationMs;
  }

  snapshot(sessions: number): PoolBackendMetrics {
    return {
      sessions,
      ...this.#counts,
      loginsRefused: { ...this.#loginsRefused },
      sharesRejected: { ...this.#sharesRejected },
      blocksRefused: { ...this.#blocksRefused },
    };
  }
}
