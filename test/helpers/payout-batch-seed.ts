import type { Redis } from 'ioredis';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';

/** A payout batch as a test stores it: the fields the public lists read, no transfers. */
export interface SeededBatch {
  readonly id: string;
  readonly state: 'prepared' | 'sending' | 'sent' | 'failed';
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** When mark_sent recorded the transaction (it sets updatedAtMs to the same time). */
  readonly resolvedAtMs?: number;
  /** Set for sent batches (the lists skip a sent batch without one). */
  readonly txHash?: string;
}

/**
 * Writes the batches' hashes and their `payout:batches` index entries (score createdAtMs, as
 * prepare_batch writes them), and a sent batch's transaction in `payout:txs`, in one MULTI, so a
 * test can hold thousands without running payouts.
 */
export async function seedPayoutBatches(
  redis: Redis,
  keyPrefix: string,
  batches: readonly SeededBatch[],
): Promise<void> {
  const keys = createPaymentKeys(keyPrefix);
  const multi = redis.multi();
  for (const batch of batches) {
    multi.zadd(keys.batches, batch.createdAtMs, batch.id);
    multi.hset(keys.batch(batch.id), {
      id: batch.id,
      state: batch.state,
      createdAtMs: String(batch.createdAtMs),
      updatedAtMs: String(batch.updatedAtMs),
      transfers: '[]',
      totalDebit: '100',
      totalAmount: '90',
      networkFee: '10',
      ...(batch.txHash === undefined ? {} : { txHash: batch.txHash }),
      ...(batch.resolvedAtMs === undefined ? {} : { resolvedAtMs: String(batch.resolvedAtMs) }),
    });
    // mark_sent records each sent transaction; revert_sent removes it again.
    if (batch.state === 'sent' && batch.txHash !== undefined)
      multi.hset(keys.payoutTransactions, batch.txHash, batch.id);
  }
  await multi.exec();
}
