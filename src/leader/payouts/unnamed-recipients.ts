import { FuegoPoolError } from '../../errors.js';
import { AddressError, decodeAddress } from '../../fuego/address.js';
import { ATOMIC_UNITS_PER_COIN, formatAtomic } from '../../fuego/money.js';
import type { NamedRecipient, UnknownPayment } from '../../model/payouts/payout-watch.js';
import { accountPaidAt, accountsPaidBy } from './unknown-payments.js';

/**
 * - RECIPIENTS_INVALID: lines of the list that do not parse (each problem names its line), a
 *   duplicate account, or a list that names nobody.
 * - RECIPIENTS_SUM_MISMATCH: the amounts do not add up to what the payment paid unnamed.
 * - RECIPIENTS_NOT_NEEDED: the payment's wallet record names its recipients (nothing unnamed).
 */
export type RecipientsListErrorCode =
  | 'RECIPIENTS_INVALID'
  | 'RECIPIENTS_SUM_MISMATCH'
  | 'RECIPIENTS_NOT_NEEDED';

export class RecipientsListError extends FuegoPoolError<RecipientsListErrorCode> {}

/** A whole number of atomic units above zero, at most 19 digits (Redis integers are 64-bit). */
const AMOUNT_PATTERN = /^[1-9][0-9]{0,18}$/;

/** Problems listed in one error at most (the rest are counted). */
const MAX_PROBLEMS_LISTED = 20;

/**
 * The recipients an operator names for what an unknown payment paid to outputs its wallet record
 * does not name (walletd rebuilt it from the chain), read from `text`: one `ADDRESS AMOUNT` a
 * line, AMOUNT in ATOMIC UNITS (a positive whole number, as the pool's `payout batch sending` log
 * line prints it: 1 XFG is 10000000), separated by spaces or tabs; blank lines and `#` comments
 * are skipped. ADDRESS is the miner's account as the pool knows it: an integrated address stands
 * for itself and must carry the transaction's payment id; a standard address paid by a transaction
 * with a payment id stands for the integrated account made of the two, as the payout code pays it.
 * Every problem names its line; a duplicate account (written twice, or already named by the
 * wallet's record) is refused, and the amounts must add up to `payment.unnamedAtomic` exactly.
 * Nothing is written here: the caller debits the accounts returned.
 */
export function namedRecipientsFor(payment: UnknownPayment, text: string): NamedRecipient[] {
  if (payment.unnamedAtomic === 0n) {
    throw new RecipientsListError(
      'RECIPIENTS_NOT_NEEDED',
      `the wallet's record of ${payment.txHash} names all its recipients: resolve it with --paid alone`,
      { txHash: payment.txHash },
    );
  }
  const { recipients, problems } = readRecipients(payment, text);
  if (problems.length === 0 && recipients.length === 0) problems.push('the list names no recipient');
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_PROBLEMS_LISTED);
    const more = problems.length > listed.length ? `\n  (and ${problems.length - listed.length} more)` : '';
    throw new RecipientsListError(
      'RECIPIENTS_INVALID',
      `the recipients list is refused, nothing was written:\n  ${listed.join('\n  ')}${more}`,
      { txHash: payment.txHash, problems },
    );
  }
  const sumAtomic = recipients.reduce((sum, r) => sum + r.amountAtomic, 0n);
  if (sumAtomic !== payment.unnamedAtomic) {
    throw new RecipientsListError(
      'RECIPIENTS_SUM_MISMATCH',
      `the recipients add up to ${sumAtomic} atomic units (${formatAtomic(sumAtomic)} XFG) but ${payment.txHash} paid ${payment.unnamedAtomic} (${formatAtomic(payment.unnamedAtomic)} XFG) to recipients its record does not name: nothing was written`,
      {
        txHash: payment.txHash,
        sumAtomic: sumAtomic.toString(),
        unnamedAtomic: payment.unnamedAtomic.toString(),
      },
    );
  }
  return recipients;
}

function readRecipients(
  payment: UnknownPayment,
  text: string,
): { recipients: NamedRecipient[]; problems: string[] } {
  const recipients: NamedRecipient[] = [];
  const problems: string[] = [];
  // The line each account was named on; 0: by the wallet's record itself.
  const namedOn = new Map<string, number>(accountsPaidBy(payment).map((account) => [account, 0]));
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const content = raw.replace(/#.*$/, '').trim();
    if (content === '') continue;
    const parsed = parseRecipientLine(content, payment.paymentId);
    if (typeof parsed === 'string') {
      problems.push(`line ${line}: ${parsed}`);
      continue;
    }
    const earlier = namedOn.get(parsed.address);
    if (earlier !== undefined) {
      const where = earlier === 0 ? "the wallet's record of the transaction" : `line ${earlier}`;
      problems.push(`line ${line}: account ${parsed.address} is already named on ${where}`);
      continue;
    }
    namedOn.set(parsed.address, line);
    recipients.push(parsed);
  }
  return { recipients, problems };
}

/** One line's recipient (its account and amount), or what is wrong with it. */
function parseRecipientLine(content: string, paymentId: string): NamedRecipient | string {
  const fields = content.split(/\s+/);
  if (fields.length !== 2) return `expected ADDRESS AMOUNT, found ${fields.length} field(s)`;
  const [address, amountText] = fields as [string, string];
  if (!AMOUNT_PATTERN.test(amountText)) {
    return `AMOUNT ${JSON.stringify(amountText.slice(0, 40))} is not a positive whole number of atomic units (1 XFG = ${ATOMIC_UNITS_PER_COIN}; 1.5 XFG is written 15000000)`;
  }
  let decoded: ReturnType<typeof decodeAddress>;
  try {
    decoded = decodeAddress(address);
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    return `${JSON.stringify(address.slice(0, 40))} is not a Fuego address (${error.code})`;
  }
  const amountAtomic = BigInt(amountText);
  if (decoded.type === 'standard') return { address: accountPaidAt(address, paymentId), amountAtomic };
  if (paymentId === '') {
    return 'an integrated address, but the transaction carried no payment id: it paid no integrated account';
  }
  if (decoded.paymentId !== paymentId.toLowerCase()) {
    return `the payment id of this integrated address is not the transaction's (${paymentId})`;
  }
  return { address, amountAtomic };
}
