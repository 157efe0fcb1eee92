import { FuegoPoolError } from '../../errors.js';
import { runStoreCommand } from '../store-error.js';

/**
 * Refusals of the money scripts (nothing was written when one is thrown):
 * - FENCED: the fencing token given no longer matches `<p>:leader:token` (a stale leader).
 * - LOCK_LOST: the payout lock expired or another process holds it.
 * - INSUFFICIENT_BALANCE: a debit larger than the miner's balance (or a miner already in an open batch).
 * - ACCOUNT_NOT_FOUND: an operator's adjustment of an address the pool has no account for.
 * - BATCH_EXISTS / BATCH_NOT_FOUND / BATCH_STATE: a batch write that does not fit the batch's state.
 * - INVALID_AMOUNT: an amount that is not a canonical decimal integer in range.
 * - CORRUPT_BALANCE: a stored amount that does not parse (never read as zero).
 * - BLOCK_NOT_FOUND / BLOCK_NOT_FLAGGED / BLOCK_SETTLED / BLOCK_NOT_RESTORED / BLOCK_STATE: the
 *   settlement of a block orphaned after its credit does not fit the block's record (no such
 *   block, not flagged, settled already, not restored after a clawback, credits record changed).
 * - RECIPIENTS_UNKNOWN: an unknown payment recorded as paid whose wallet record names no
 *   recipients (walletd rebuilt it from the chain), with none named by the operator either: nobody
 *   to debit.
 * - INDEX_CHANGING: not a script's refusal: the payable index changed during every try to sum it
 *   (positiveBalanceTotal where no sum is kept yet, or its audit), for several seconds.
 */
export type PaymentStoreErrorCode =
  | 'FENCED'
  | 'LOCK_LOST'
  | 'INSUFFICIENT_BALANCE'
  | 'ACCOUNT_NOT_FOUND'
  | 'BATCH_EXISTS'
  | 'BATCH_NOT_FOUND'
  | 'BATCH_STATE'
  | 'INVALID_AMOUNT'
  | 'CORRUPT_BALANCE'
  | 'BLOCK_NOT_FOUND'
  | 'BLOCK_NOT_FLAGGED'
  | 'BLOCK_SETTLED'
  | 'BLOCK_NOT_RESTORED'
  | 'BLOCK_STATE'
  | 'INDEX_CHANGING'
  | 'RECIPIENTS_UNKNOWN';

export class PaymentStoreError extends FuegoPoolError<PaymentStoreErrorCode> {}

const REFUSALS: readonly PaymentStoreErrorCode[] = [
  'FENCED',
  'LOCK_LOST',
  'INSUFFICIENT_BALANCE',
  'BATCH_EXISTS',
  'BATCH_NOT_FOUND',
  'BATCH_STATE',
  'CORRUPT_BALANCE',
  'BLOCK_NOT_FOUND',
  'BLOCK_NOT_FLAGGED',
  'BLOCK_SETTLED',
  'BLOCK_NOT_RESTORED',
  'BLOCK_STATE',
  'RECIPIENTS_UNKNOWN',
];

/**
 * The scripts answer a refusal as `{0, CODE, detail}` (a normal reply, so nothing is half-written:
 * every check runs before the first write). Returns the error for such a reply, or null.
 */
export function refusalOf(reply: unknown, operation: string): PaymentStoreError | null {
  if (!Array.isArray(reply) || reply[0] !== 0) return null;
  const code = String(reply[1]) as PaymentStoreErrorCode;
  const detail = reply[2] === undefined ? '' : String(reply[2]);
  const known = REFUSALS.includes(code) ? code : 'BATCH_STATE';
  return new PaymentStoreError(known, `${operation} refused: ${code}${detail ? ` (${detail})` : ''}`, {
    operation,
    detail,
  });
}

/** A bigint amount as the decimal string the scripts take; refuses negatives unless allowed. */
export function amountArg(amount: bigint, what: string, allowNegative = false): string {
  if (typeof amount !== 'bigint' || (!allowNegative && amount < 0n)) {
    throw new PaymentStoreError('INVALID_AMOUNT', `${what} must be a non-negative bigint`, {
      what,
      amount: String(amount),
    });
  }
  // Redis integers are signed 64-bit; HINCRBY past that fails after earlier writes of a script.
  if (amount > 9_223_372_036_854_775_807n || amount < -9_223_372_036_854_775_807n) {
    throw new PaymentStoreError('INVALID_AMOUNT', `${what} is out of the signed 64-bit range`, {
      what,
      amount: amount.toString(),
    });
  }
  return amount.toString();
}

/** A stored decimal integer -> bigint; absent means 0 (a field never written), garbage throws. */
export function parseStoredAmount(value: string | null | undefined, what: string): bigint {
  if (value === null || value === undefined) return 0n;
  if (!/^-?\d{1,20}$/.test(value)) {
    throw new PaymentStoreError('CORRUPT_BALANCE', `corrupt ${what}`, { what, value });
  }
  return BigInt(value);
}

/** runStoreCommand for the payment stores: their own refusals (PaymentStoreError) pass through. */
export function runPaymentCommand<T>(operation: string, command: () => Promise<T>): Promise<T> {
  return runStoreCommand(operation, command, PaymentStoreError);
}
