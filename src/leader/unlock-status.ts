import type { UnlockRunSummary } from './unlocker/trusted-chain-unlocker.js';

/**
 * The leader's unlock runs as `fuego-pool status` shows them: when the last one ended, whether
 * runs are held (the daemon's chain not trusted: isolated, syncing, a witness disagreeing) and
 * since when, what the last one decided, or how it failed.
 */
export interface UnlockStatus {
  /** Wall clock (ms) at the end of the last run; null before the first. */
  readonly lastRunMs: number | null;
  /** Why the runs decide nothing (the run's `skipped`), or null. */
  readonly held: string | null;
  /** Since when `held` has been the same reason (the first run that was held for it). */
  readonly heldSinceMs: number | null;
  /** Blocks the last run credited, orphaned or flagged. */
  readonly decided: number;
  /** The last run's error message, if it failed (the runs after it keep trying). */
  readonly lastError: string | null;
}

export const NO_UNLOCK_RUN_YET: UnlockStatus = Object.freeze({
  lastRunMs: null,
  held: null,
  heldSinceMs: null,
  decided: 0,
  lastError: null,
});

/** Outcomes that leave a block pending are not decisions. */
const UNDECIDED = new Set(['pending', 'not-on-main-chain', 'above-tip', 'already-decided', 'error']);

export function nextUnlockStatus(
  previous: UnlockStatus,
  nowMs: number,
  run: { readonly summary: UnlockRunSummary } | { readonly error: unknown },
): UnlockStatus {
  if ('error' in run) {
    const message = run.error instanceof Error ? run.error.message : String(run.error);
    return { ...previous, lastRunMs: nowMs, decided: 0, lastError: message };
  }
  const { skipped, decisions } = run.summary;
  // 'not-leader' is the fencing check of a lost term, not a held chain.
  const held = skipped === null || skipped === 'not-leader' ? null : skipped;
  return {
    lastRunMs: nowMs,
    held,
    heldSinceMs: held === null ? null : held === previous.held ? previous.heldSinceMs : nowMs,
    decided: decisions.filter((decision) => !UNDECIDED.has(decision.outcome)).length,
    lastError: null,
  };
}
