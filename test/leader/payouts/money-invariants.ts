import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';

/**
 * Checks the ledger's invariants on a real Redis: per miner and pool-wide
 * credited = balance + inPayout + paid + networkFees, the totals equal the sum of the miners, and
 * rewards + adjustments = credited + poolFees, the payable index lists the positive balances and
 * their kept sum is theirs. `addresses` are the miners to sum (the test knows them).
 */
export async function expectLedgerConsistent(
  redis: Redis,
  keyPrefix: string,
  addresses: readonly string[],
): Promise<void> {
  const balances = new RedisBalances({ keyPrefix }, { redis });
  const sum = { credited: 0n, balance: 0n, inPayout: 0n, paid: 0n, networkFees: 0n };
  for (const address of addresses) {
    const b = await balances.getBalance(address);
    expect(b.credited, `credited of ${address}`).toBe(b.balance + b.inPayout + b.paid + b.networkFees);
    sum.credited += b.credited;
    sum.balance += b.balance;
    sum.inPayout += b.inPayout;
    sum.paid += b.paid;
    sum.networkFees += b.networkFees;
  }
  const totals = await balances.getTotals();
  expect({
    credited: totals.credited,
    balance: totals.balance,
    inPayout: totals.inPayout,
    paid: totals.paid,
    networkFees: totals.networkFees,
  }).toEqual(sum);
  expect(totals.rewards + totals.adjustments).toBe(totals.credited + totals.poolFees);
  // The payable index lists exactly the positive balances.
  const keys = createPaymentKeys(keyPrefix);
  const indexed = await redis.zrange(keys.payable, 0, -1);
  const positive = [];
  let positiveSum = 0n;
  for (const address of addresses) {
    const { balance } = await balances.getBalance(address);
    if (balance > 0n) {
      positive.push(address);
      positiveSum += balance;
    }
  }
  expect([...indexed].sort()).toEqual(positive.sort());
  // The sum of the balances above zero the scripts keep (what /metrics reads) is the index's sum
  // (none kept the first time: the audit stores it, and the scripts keep it from then on).
  const { summedAtomic, keptAtomic } = await balances.auditPositiveBalance();
  expect(summedAtomic).toBe(positiveSum);
  expect(keptAtomic ?? summedAtomic, 'kept sum of the balances above zero').toBe(summedAtomic);
  expect(await balances.positiveBalanceTotal()).toBe(positiveSum);
}
