import type { Logger } from '../../log/logger.js';
import type { BlockCandidate } from '../../model/share-ledger.js';
import { toStoreError } from '../store-error.js';

const RETRY_FIRST_DELAY_MS = 100;
const RETRY_MAX_DELAY_MS = 2_000;

/**
 * Runs an idempotent write about `candidate`, retried with backoff for `retryMs` while Redis is
 * unavailable. Any other error, or the last one, is logged with everything needed to re-insert
 * the block by hand (no secrets in a candidate) and thrown as a StoreError.
 */
export async function retryBlockWrite<T>(
  operation: string,
  candidate: BlockCandidate,
  attempt: () => Promise<T>,
  settings: { readonly retryMs: number; readonly logger: Logger },
): Promise<T> {
  const { logger } = settings;
  const deadline = Date.now() + settings.retryMs;
  let delayMs = RETRY_FIRST_DELAY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (caught) {
      const error = toStoreError(caught, operation, { height: candidate.height, hash: candidate.hash });
      const remainingMs = deadline - Date.now();
      if (error.code !== 'STORE_UNAVAILABLE' || remainingMs <= 0) {
        logger.error(
          {
            err: error,
            operation,
            height: candidate.height,
            hash: candidate.hash,
            prevHash: candidate.prevHash,
            networkDifficulty: candidate.networkDifficulty.toString(),
            finderAddress: candidate.share.address,
            finderWorker: candidate.share.worker,
            submitResult: candidate.submitResult,
            timestampMs: candidate.timestampMs,
          },
          'block write failed',
        );
        throw error;
      }
      const waitMs = Math.min(delayMs, remainingMs);
      logger.warn({ err: error, operation, hash: candidate.hash, retryInMs: waitMs }, 'retrying block write');
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      delayMs = Math.min(delayMs * 2, RETRY_MAX_DELAY_MS);
    }
  }
}
