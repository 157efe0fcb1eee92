import type { MinerSession } from './miner-session.js';

/** Which miners a broadcast gives a job on a blob shared with others (JobManager.issueShared). */
export interface SharedJobsOptions {
  readonly enabled: boolean;
  /**
   * H/s, judged from the vardiff difficulty: a faster miner gets a blob of its own, since a shared
   * one leaves it 2^24 nonces per job.
   */
  readonly maxMinerHashrate: number;
}

/** Nonces a job on a shared blob leaves its miner: the three bytes below its own top byte. */
const SHARED_JOB_NONCES = 2 ** 24;

/**
 * Whether the session may be given a shared blob: a miner known to keep the byte, under vardiff
 * (a fixed difficulty says nothing of its speed), at most `maxMinerHashrate` by its difficulty.
 * Not one that vardiff would take above its maxDifficulty: it may be any faster than that says.
 */
export function takesSharedJob(
  session: MinerSession,
  options: SharedJobsOptions,
  targetShareTimeSec: number,
): boolean {
  const { vardiff } = session;
  return (
    options.enabled &&
    session.keepsNonceTopByte &&
    vardiff !== undefined &&
    !vardiff.fasterThanMax &&
    vardiff.difficulty / targetShareTimeSec <= options.maxMinerHashrate
  );
}

/**
 * A session on a shared blob due a fresh job: its job is older than half the time its 2^24
 * nonces last at the speed its difficulty says (the other half covers a miner faster than
 * that), and at least `refreshMs` old; or vardiff found it faster than maxDifficulty says.
 * At 50,000 H/s that is 2.8 minutes; at 1,000 H/s, 2.3 hours, so slow miners are refreshed by
 * the next template, not by a timer.
 */
export function sharedJobDue(
  session: MinerSession,
  nowMs: number,
  refreshMs: number,
  targetShareTimeSec: number,
): boolean {
  const job = session.lastJobTerms;
  if (job === undefined || !session.lastJobOnSharedBlob) return false;
  // Faster than its difficulty says, by how much unknown: a blob of its own now (takesSharedJob).
  if (session.vardiff?.fasterThanMax === true) return true;
  const hashesPerSec = session.difficulty / targetShareTimeSec;
  const noncesLastMs = (SHARED_JOB_NONCES / hashesPerSec) * 1000;
  return nowMs - job.issuedAtMs >= Math.max(refreshMs, noncesLastMs / 2);
}
