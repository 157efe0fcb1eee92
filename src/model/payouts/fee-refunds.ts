import type { BatchTransfer } from './payout-batch.js';

/**
 * What each miner of a sent batch gets back when they were charged more network fee than the
 * wallet paid (walletd 1.9.3 pays 80000 whatever it is asked), in the batch's transfer order.
 *
 * The surplus (charged - paid) is split in proportion to each charge, rounded down; the units
 * rounding leaves (fewer than the miners) go one each to the largest charges, ties to the lower
 * address, so the refunds add up to the surplus exactly and never exceed a charge. Nothing is
 * refunded when the wallet paid at least what was charged: the pool pays the rest.
 */
export function feeRefunds(transfers: readonly BatchTransfer[], actualFeeAtomic: bigint): bigint[] {
  const charged = chargedFee(transfers);
  const surplus = charged - actualFeeAtomic;
  if (surplus <= 0n) return transfers.map(() => 0n);
  const refunds = transfers.map((t) => (surplus * t.feeShareAtomic) / charged);
  let left = surplus - refunds.reduce((sum, r) => sum + r, 0n);
  const byCharge = transfers
    .map((t, index) => ({ index, share: t.feeShareAtomic, address: t.address }))
    .sort((a, b) => compareDescending(a.share, b.share) || compareAscending(a.address, b.address));
  for (const { index } of byCharge) {
    if (left === 0n) break;
    refunds[index]! += 1n;
    left -= 1n;
  }
  return refunds;
}

/**
 * The part of a batch's actual fee the pool pays, given the refunds its miners got back: all of
 * it with feePaidBy "pool", what the miners were not charged otherwise. Signed: a batch recorded
 * before refunds existed (no refunds) kept its surplus, a negative share.
 */
export function poolFeeShare(
  transfers: readonly BatchTransfer[],
  actualFeeAtomic: bigint,
  refunds: readonly bigint[],
): bigint {
  return actualFeeAtomic - chargedFee(transfers) + refunds.reduce((sum, r) => sum + r, 0n);
}

function chargedFee(transfers: readonly BatchTransfer[]): bigint {
  return transfers.reduce((sum, t) => sum + t.feeShareAtomic, 0n);
}

function compareDescending(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

function compareAscending(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
