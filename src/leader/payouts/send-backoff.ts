import type { SendBackoff } from '../../model/payouts/payout-watch.js';

export interface BackoffPolicy {
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * The pause after the wallet refused to build a transaction for a reason that repeats (it cannot
 * find decoys on a young chain, the transaction is too big): the first delay, doubled after each
 * refusal that follows, never more than the maximum.
 */
export function nextSendBackoff(
  previous: SendBackoff | null,
  reason: string,
  nowMs: number,
  policy: BackoffPolicy,
): SendBackoff {
  const attempt = (previous?.attempt ?? 0) + 1;
  const delayMs = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(attempt - 1, 30));
  return { untilMs: nowMs + delayMs, attempt, reason, sinceMs: previous?.sinceMs ?? nowMs };
}
