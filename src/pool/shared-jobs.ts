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

/**
 * Whether the session may be given a shared blob: a miner known to keep the byte, under vardiff
 * (a fixed difficulty says nothing of its speed), at most `maxMinerHashrate` by its difficulty.
 */
export function takesSharedJob(
  session: MinerSession,
  options: SharedJobsOptions,
  targetShareTimeSec: number,
): boolean {
  return (
    options.enabled &&
    session.keepsNonceTopByte &&
    session.vardiff !== undefined &&
    session.vardiff.difficulty / targetShareTimeSec <= options.maxMinerHashrate
  );
}

/** A session mining a shared blob for `refreshMs` or longer: due a fresh job before its nonces run out. */
export function sharedJobDue(session: MinerSession, nowMs: number, refreshMs: number): boolean {
  const job = session.lastJob;
  return job !== undefined && job.nonceTopByte !== undefined && nowMs - job.issuedAtMs >= refreshMs;
}
