import { setTimeout as sleep } from 'node:timers/promises';
import { RpcError } from './rpc-error.js';

export interface RetryPolicy {
  /** Extra attempts after the first one. */
  readonly retries: number;
  /** First back-off; doubles each attempt, capped at `maxDelayMs`, with ±25% jitter. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Retries `attempt` on transient RPC errors only (timeouts, refused connections, 5xx). */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      const transient = error instanceof RpcError && error.isTransient;
      if (!transient || tried >= policy.retries || signal?.aborted) throw error;
      const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** tried);
      const jittered = exponential * (0.75 + Math.random() * 0.5);
      await sleep(jittered, undefined, signal ? { signal } : undefined);
    }
  }
}
