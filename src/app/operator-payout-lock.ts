import { randomUUID } from 'node:crypto';
import type { PayoutWriter } from '../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../model/payouts/payout-journal.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';

/** How long an operator's money command may hold the payout lock. */
export const OPERATOR_LOCK_TTL_MS = 30_000;

/**
 * Runs an operator's change to balances or batches (`payout resolve`, `block settle`, `balance
 * adjust`) under the payout lock, so that no payout pass reads or moves those balances meanwhile.
 * The writer has no fencing token (the CLI is not the leader) and the lock's token. Throws
 * LOCK_LOST when a pass holds the lock (nothing was done); the lock is released after.
 */
export async function underPayoutLock<T>(
  journal: Pick<PayoutJournal, 'acquireLock' | 'releaseLock'>,
  work: (writer: PayoutWriter) => Promise<T>,
): Promise<T> {
  const lockToken = randomUUID();
  if (!(await journal.acquireLock(lockToken, OPERATOR_LOCK_TTL_MS))) {
    throw new PaymentStoreError('LOCK_LOST', 'a payout pass holds the payout lock: try again in a moment');
  }
  try {
    return await work({ fencingToken: '', lockToken });
  } finally {
    await journal.releaseLock(lockToken);
  }
}
