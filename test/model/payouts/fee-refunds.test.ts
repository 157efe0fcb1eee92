import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeRefunds, poolFeeShare } from '../../../src/model/payouts/fee-refunds.js';
import type { BatchTransfer } from '../../../src/model/payouts/payout-batch.js';

function charged(address: string, feeShareAtomic: bigint): BatchTransfer {
  return {
    address,
    destination: address,
    amountAtomic: 1n,
    feeShareAtomic,
    debitAtomic: 1n + feeShareAtomic,
  };
}

describe('fee refunds of a sent batch', () => {
  it('splits the surplus by charge, the odd units to the largest charge, then the lower address', () => {
    const transfers = [charged('b', 33_333n), charged('c', 33_334n), charged('a', 33_333n)];
    expect(feeRefunds(transfers, 80_000n)).toEqual([6_666n, 6_667n, 6_667n]);
    expect(poolFeeShare(transfers, 80_000n, [6_666n, 6_667n, 6_667n])).toBe(0n);
  });

  it('refunds nothing when the wallet paid what was charged or more: the pool pays the rest', () => {
    const transfers = [charged('a', 30_001n), charged('b', 30_000n)];
    expect(feeRefunds(transfers, 80_000n)).toEqual([0n, 0n]);
    expect(poolFeeShare(transfers, 80_000n, [0n, 0n])).toBe(19_999n);
    expect(feeRefunds(transfers, 60_001n)).toEqual([0n, 0n]);
    // feePaidBy "pool": nothing charged, nothing back, the pool pays it all.
    expect(feeRefunds([charged('a', 0n)], 80_000n)).toEqual([0n]);
    expect(poolFeeShare([charged('a', 0n)], 80_000n, [0n])).toBe(80_000n);
  });

  it('keeps the surplus of a batch recorded before refunds existed as the negative share it was', () => {
    expect(poolFeeShare([charged('a', 100_000n)], 80_000n, [0n])).toBe(-20_000n);
  });

  it('adds up to the surplus exactly, never above a charge, whatever the order of the transfers', () => {
    const shares = fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(shares, fc.bigInt({ min: 0n, max: 10n ** 13n }), (fees, actual) => {
        const transfers = fees.map((fee, i) => charged(`m${String(i).padStart(2, '0')}`, fee));
        const refunds = feeRefunds(transfers, actual);
        const total = fees.reduce((sum, f) => sum + f, 0n);
        const surplus = total > actual ? total - actual : 0n;
        expect(refunds.reduce((sum, r) => sum + r, 0n)).toBe(surplus);
        refunds.forEach((r, i) => {
          expect(r >= 0n && r <= fees[i]!).toBe(true);
        });
        expect(poolFeeShare(transfers, actual, refunds)).toBe(actual > total ? actual - total : 0n);
        const reversed = [...transfers].reverse();
        expect(feeRefunds(reversed, actual)).toEqual([...refunds].reverse());
      }),
    );
  });
});
