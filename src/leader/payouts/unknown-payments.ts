import { decodeAddress, encodeIntegratedAddress } from '../../fuego/address.js';
import type { UnknownPayment } from '../../model/payouts/payout-watch.js';
import type { TaggedTransaction } from './batch-finder.js';

/**
 * The relayed tagged transactions whose batch the journal does not know: money that left the
 * wallet for the pool's miners with no record of it in Redis. Only what went to addresses outside
 * the wallet counts (walletd also lists the change, type 2, and the spent inputs, negative).
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
      .filter((t) => t.amount > 0 && t.type !== 2 && !walletAddresses.has(t.address))
      .map((t) => ({ address: t.address, amountAtomic: BigInt(t.amount) }));
    unknown.push({
      txHash: tx.txHash,
      batchId: tx.batchId,
      blockIndex: tx.blockIndex,
      paymentId: tx.paymentId,
      feeAtomic: tx.feeAtomic,
      transfers,
      firstSeenMs: nowMs,
      status: 'unresolved',
      resolvedAtMs: null,
      resolvedNote: null,
    });
  }
  return unknown;
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
 * The miner account each transfer of an unknown payment paid: the destination itself, or, when the
 * transaction carried a payment id, the integrated address made of the destination and that id
 * (the pool pays an integrated account to its standard address with the id in extra).
 */
export function accountsPaidBy(payment: UnknownPayment): string[] {
  return payment.transfers.map((transfer) => {
    if (payment.paymentId === '') return transfer.address;
    const decoded = decodeAddress(transfer.address);
    return encodeIntegratedAddress({ ...decoded, paymentId: payment.paymentId });
  });
}
