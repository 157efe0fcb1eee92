import type { Redis } from 'ioredis';
import { accountsPaidBy } from '../leader/payouts/unknown-payments.js';
import type { UnknownPayment } from '../model/payouts/payout-watch.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { PayoutWatchStore } from '../store/payments/payout-watch-store.js';
import { underPayoutLock } from './operator-payout-lock.js';

/**
 * The operator's decision about an unknown payment, under the payout lock so that no payout pass
 * runs meanwhile: `paid` debits each recipient account what the transaction paid it (it reached
 * them; Redis only lost the record), `dismiss` changes no balance (accounted for otherwise).
 * Refuses (PaymentStoreError) an unknown transaction hash, one already resolved, a held lock, or
 * `paid` for one whose wallet record names no recipients (RECIPIENTS_UNKNOWN: walletd rebuilt it
 * from the chain; the operator debits its miners by hand, then dismisses it).
 */
export async function resolveUnknownPayment(
  keyPrefix: string,
  redis: Redis,
  request: { readonly txHash: string; readonly mode: 'paid' | 'dismiss'; readonly note: string },
): Promise<UnknownPayment> {
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const watch = new PayoutWatchStore({ keyPrefix }, { redis });
  const payment = (await watch.listUnknownPayments()).find((p) => p.txHash === request.txHash);
  if (payment === undefined) {
    throw new PaymentStoreError('BATCH_NOT_FOUND', `no unknown payment with transaction ${request.txHash}`, {
      txHash: request.txHash,
    });
  }
  if (request.mode === 'paid' && payment.unnamedAtomic > 0n) {
    throw new PaymentStoreError(
      'RECIPIENTS_UNKNOWN',
      `the wallet's record of ${request.txHash} names no recipients (rebuilt from the chain after a wallet reset): debit those it paid with \`fuego-pool balance adjust ADDRESS --debit XFG\`, then resolve it with --dismiss`,
      { txHash: request.txHash, unnamedAtomic: payment.unnamedAtomic.toString() },
    );
  }
  await underPayoutLock(journal, (writer) =>
    watch.resolveUnknownPayment(writer, {
      payment,
      mode: request.mode,
      note: request.note,
      accounts: accountsPaidBy(payment),
    }),
  );
  return payment;
}

/** The transaction hashes of the unknown payments not resolved yet, oldest first. */
export async function unresolvedPaymentHashes(keyPrefix: string, redis: Redis): Promise<string[]> {
  const payments = await new PayoutWatchStore({ keyPrefix }, { redis }).listUnknownPayments();
  return payments
    .filter((p) => p.status === 'unresolved')
    .reverse()
    .map((p) => p.txHash);
}
