import type { PayoutBatch } from '../../model/payouts/payout-batch.js';

/** A wallet record's transfers as walletd lists them (amount in atomic units). */
export type RecordTransfers = ReadonlyArray<{ readonly address: string; readonly amount: number | bigint }>;

/**
 * What a wallet record of a batch's transaction says about the batch's transfers:
 * - 'listed': every transfer of the batch is in it (the record walletd built when it sent);
 * - 'missing': those it does not list (address and amount);
 * - 'rebuilt': walletd rebuilt the record from the chain after losing it (reset, older backup:
 *   WalletGreen::updateTransactionTransfers): it names only the wallet's own addresses and puts
 *   every other output into one transfer with an EMPTY address, so only the total that left for
 *   outside the wallet can be checked against the batch's.
 */
export type BatchTransferCheck =
  | { readonly kind: 'listed' }
  | { readonly kind: 'missing'; readonly addresses: readonly string[] }
  | { readonly kind: 'rebuilt'; readonly unnamedAtomic: bigint; readonly expectedAtomic: bigint };

export function checkBatchTransfers(batch: PayoutBatch, transfers: RecordTransfers): BatchTransferCheck {
  const unnamedAtomic = unnamedAmountOf(transfers);
  if (unnamedAtomic > 0n) {
    return {
      kind: 'rebuilt',
      unnamedAtomic,
      expectedAtomic: batch.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n),
    };
  }
  const missing = batch.transfers.filter(
    (transfer) =>
      !transfers.some(
        (t) => t.address === transfer.destination && BigInt(t.amount) === transfer.amountAtomic,
      ),
  );
  return missing.length === 0
    ? { kind: 'listed' }
    : { kind: 'missing', addresses: missing.map((t) => t.address) };
}

/** What a wallet record paid to outputs walletd cannot name (its transfers with an empty address). */
export function unnamedAmountOf(transfers: RecordTransfers): bigint {
  return transfers
    .filter((t) => t.address === '' && BigInt(t.amount) > 0n)
    .reduce((sum, t) => sum + BigInt(t.amount), 0n);
}
