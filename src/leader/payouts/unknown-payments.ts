import { decodeAddress, encodeIntegratedAddress } from '../../fuego/address.js';
import { formatAtomic } from '../../fuego/money.js';
import { type UnknownPayment, unknownPaymentAmount } from '../../model/payouts/payout-watch.js';
import type { PassStop } from '../../pool/payouts/payout-reports.js';
import type { TaggedTransaction } from './batch-finder.js';
import { unnamedAmountOf } from './batch-transfers.js';

/**
 * The relayed tagged transactions whose batch the journal does not know: money that left the
 * wallet for the pool's miners with no record of it in Redis. Only what went to addresses outside
 * the wallet counts (walletd also lists the change, type 2, and the spent inputs, negative). A
 * record walletd rebuilt from the chain names none of them: what it paid to its transfer with an
 * empty address is `unnamedAtomic`, never a payment to address "".
 */
export function unknownPaymentsIn(
  tagged: Iterable<TaggedTransaction>,
  knownBatchIds: ReadonlySet<string>,
  walletAddresses: ReadonlySet<string>,
  nowMs: number,
): UnknownPayment[] {
  const unknown: UnknownPayment[] = [];
  for (const tx of tagged) {
    if (tx.outcome !== 'sent' || knownBatchIds.has(tx.batchId)) continue;
    const transfers = tx.transfers
      .filter((t) => t.amount > 0 && t.type !== 2 && t.address !== '' && !walletAddresses.has(t.address))
      .map((t) => ({ address: t.address, amountAtomic: BigInt(t.amount) }));
    unknown.push({
      txHash: tx.txHash,
      batchId: tx.batchId,
      blockIndex: tx.blockIndex,
      paymentId: tx.paymentId,
      feeAtomic: tx.feeAtomic,
      transfers,
      unnamedAtomic: unnamedAmountOf(tx.transfers),
      firstSeenMs: nowMs,
      status: 'unresolved',
      resolvedAtMs: null,
      resolvedNote: null,
    });
  }
  return unknown;
}

/**
 * Why no miner is paid while `payment`, an unresolved unknown payment whose wallet record names no
 * recipients, is: any of them may be among those it paid.
 */
export function unknownRecipientsStop(payment: UnknownPayment): PassStop {
  return {
    skipped: 'unknown-recipients',
    detail: `the wallet paid ${formatAtomic(unknownPaymentAmount(payment))} XFG in ${payment.txHash}, a transaction Redis has no batch for, to recipients its record does not name (walletd rebuilt it after a reset): no miner is paid until it is resolved with \`fuego-pool payout resolve ${payment.txHash} --paid --recipients FILE\` (whom batch ${payment.batchId} paid is in the pool's log; see \`fuego-pool report\`)`,
  };
}

/** The destination addresses unresolved unknown payments went to, with the transaction each names. */
export function addressesHeldByUnknownPayments(payments: readonly UnknownPayment[]): Map<string, string> {
  const held = new Map<string, string>();
  for (const payment of payments) {
    if (payment.status !== 'unresolved') continue;
    for (const transfer of payment.transfers) held.set(transfer.address, payment.txHash);
  }
  return held;
}

/**
 * The miner account each transfer of an unknown payment paid (see accountPaidAt), in the order of
 * its transfers.
 */
export function accountsPaidBy(payment: UnknownPayment): string[] {
  return payment.transfers.map((transfer) => accountPaidAt(transfer.address, payment.paymentId));
}

/**
 * The miner account a payment to the standard address `destination` paid: the destination
 * itself, or, when the transaction carried a payment id, the integrated address made of the
 * destination and that id (the pool pays an integrated account to its standard address with the
 * id in extra).
 */
export function accountPaidAt(destination: string, paymentId: string): string {
  if (paymentId === '') return destination;
  return encodeIntegratedAddress({ ...decodeAddress(destination), paymentId });
}
