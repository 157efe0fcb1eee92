import type { Redis } from 'ioredis';
import { accountsPaidBy } from '../leader/payouts/unknown-payments.js';
import { namedRecipientsFor, RecipientsListError } from '../leader/payouts/unnamed-recipients.js';
import type { NamedRecipient, UnknownPayment } from '../model/payouts/payout-watch.js';
import { RedisBalances } from '../store/payments/balances-store.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { PayoutWatchStore } from '../store/payments/payout-watch-store.js';
import { underPayoutLock } from './operator-payout-lock.js';

/**
 * The operator's decision about an unknown payment, under the payout lock so that no payout pass
 * runs meanwhile: `paid` debits each recipient account what the transaction paid it (it reached
 * them; Redis only lost the record), `dismiss` changes no balance (accounted for otherwise).
 * A payment whose wallet record names no recipients (walletd rebuilt it from the chain after a
 * reset: `unnamedAtomic` above zero) is recorded as paid only with `recipients`, the text of the
 * operator's list of whom it paid (see namedRecipientsFor: every line checked and the sum equal to
 * `unnamedAtomic` before anything is written); those accounts are then debited in the same one
 * script as any named transfer, and the payment keeps them.
 * Refuses (PaymentStoreError) an unknown transaction hash, one already resolved, a held lock, or
 * `paid` for a payment with unnamed recipients and no list (RECIPIENTS_UNKNOWN); refuses
 * (RecipientsListError) a list that does not check, one naming an account the pool does not have
 * (unless `newAccount`: a Redis restored from before that miner's first credit), or one for a
 * payment with nothing unnamed.
 */
export async function resolveUnknownPayment(
  keyPrefix: string,
  redis: Redis,
  request: {
    readonly txHash: string;
    readonly mode: 'paid' | 'dismiss';
    readonly note: string;
    /** `paid` only: the operator's list of whom the payment paid (`--recipients FILE`'s text). */
    readonly recipients?: string;
    /** Debit listed addresses the pool has no account for too (their balance goes below zero). */
    readonly newAccount?: boolean;
  },
): Promise<UnknownPayment> {
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const watch = new PayoutWatchStore({ keyPrefix }, { redis });
  const payment = (await watch.listUnknownPayments()).find((p) => p.txHash === request.txHash);
  if (payment === undefined) {
    throw new PaymentStoreError('BATCH_NOT_FOUND', `no unknown payment with transaction ${request.txHash}`, {
      txHash: request.txHash,
    });
  }
  if (request.recipients !== undefined && request.mode !== 'paid') {
    throw new RecipientsListError('RECIPIENTS_NOT_NEEDED', 'a list of recipients goes with --paid only', {
      txHash: request.txHash,
    });
  }
  const recipients =
    request.recipients === undefined ? undefined : namedRecipientsFor(payment, request.recipients);
  if (request.mode === 'paid' && payment.unnamedAtomic > 0n && recipients === undefined) {
    throw recipientsUnknown(payment);
  }
  if (recipients !== undefined && request.newAccount !== true) {
    await refuseStrangers(keyPrefix, redis, payment, recipients);
  }
  await underPayoutLock(journal, (writer) =>
    watch.resolveUnknownPayment(writer, {
      payment,
      mode: request.mode,
      note: request.note,
      accounts: accountsPaidBy(payment),
      ...(recipients === undefined ? {} : { recipients }),
    }),
  );
  return recipients === undefined ? payment : { ...payment, namedRecipients: recipients };
}

/**
 * A listed address the pool never credited is most likely a line from the wrong batch or pool:
 * debiting it would leave the miner it should have been still owed, and a stranger below zero.
 */
async function refuseStrangers(
  keyPrefix: string,
  redis: Redis,
  payment: UnknownPayment,
  recipients: readonly NamedRecipient[],
): Promise<void> {
  const keys = new RedisBalances({ keyPrefix }, { redis }).keys;
  const strangers: string[] = [];
  for (const { address } of recipients) {
    if ((await redis.exists(keys.balance(address))) === 0) strangers.push(address);
  }
  if (strangers.length === 0) return;
  throw new RecipientsListError(
    'RECIPIENTS_INVALID',
    `the recipients list is refused, nothing was written:\n  ${strangers.map((a) => `the pool has no account for ${a}`).join('\n  ')}\n  (check the list against the batch's log line; give --new-account to debit such an address anyway, e.g. when Redis was restored from before its first credit)`,
    { txHash: payment.txHash, strangers },
  );
}

function recipientsUnknown(payment: UnknownPayment): PaymentStoreError {
  return new PaymentStoreError(
    'RECIPIENTS_UNKNOWN',
    `the wallet's record of ${payment.txHash} names no recipients (rebuilt from the chain after a wallet reset): take whom it paid from the pool's log (the info line 'payout batch sending' of batch ${payment.batchId} lists each address and atomic amount), write them one \`ADDRESS AMOUNT\` a line (atomic units) in a file, and resolve it with --paid --recipients FILE`,
    { txHash: payment.txHash, batchId: payment.batchId, unnamedAtomic: payment.unnamedAtomic.toString() },
  );
}

/** The transaction hashes of the unknown payments not resolved yet, oldest first. */
export async function unresolvedPaymentHashes(keyPrefix: string, redis: Redis): Promise<string[]> {
  const payments = await new PayoutWatchStore({ keyPrefix }, { redis }).listUnknownPayments();
  return payments
    .filter((p) => p.status === 'unresolved')
    .reverse()
    .map((p) => p.txHash);
}
