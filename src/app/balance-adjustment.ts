import type { Redis } from 'ioredis';
import { RedisBalances } from '../store/payments/balances-store.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { underPayoutLock } from './operator-payout-lock.js';

/** The operator's manual credit (delta > 0) or debit (delta < 0) of one miner's payable balance. */
export interface BalanceAdjustmentRequest {
  readonly address: string;
  readonly deltaAtomic: bigint;
  /** Why: kept in the miner's history (its first 200 characters). */
  readonly note: string;
  readonly dryRun: boolean;
  /** Credit an address the pool has no account for (off by default: a mistyped address is refused). */
  readonly newAccount: boolean;
}

export interface BalanceAdjustment {
  readonly address: string;
  readonly deltaAtomic: bigint;
  readonly balanceBeforeAtomic: bigint;
  readonly balanceAfterAtomic: bigint;
  /** False for a dry run: what it would do. */
  readonly applied: boolean;
}

/**
 * A manual balance adjustment: a goodwill credit, or a debit of a credit given by mistake. Without
 * `dryRun` it runs under the payout lock (no pass moves the balance meanwhile) in one script that
 * records it in the miner's history (`adjustment`, the note) and in the totals' `adjustments`, so
 * `fuego-pool report`'s ledger check still adds up. Refuses (PaymentStoreError), writing nothing:
 * a zero delta (INVALID_AMOUNT), an address without an account unless `newAccount`
 * (ACCOUNT_NOT_FOUND), a debit above the payable balance: money in a payout or paid out is not the
 * operator's to take back this way (INSUFFICIENT_BALANCE), a held lock (LOCK_LOST).
 */
export async function adjustMinerBalance(
  keyPrefix: string,
  modules: { readonly redis: Redis; readonly clock?: () => number },
  request: BalanceAdjustmentRequest,
): Promise<BalanceAdjustment> {
  const balances = new RedisBalances({ keyPrefix }, modules);
  const planned = await plan(balances, modules.redis, request);
  if (request.dryRun) return planned;
  const journal = new PayoutStore({ keyPrefix }, modules);
  return underPayoutLock(journal, async () => {
    // Again under the lock: a pass may have paid the balance out since the first read.
    const before = await plan(balances, modules.redis, request);
    const after = await balances.adjust({
      address: request.address,
      deltaAtomic: request.deltaAtomic,
      note: request.note,
    });
    return { ...before, balanceAfterAtomic: after, applied: true };
  });
}

async function plan(
  balances: RedisBalances,
  redis: Redis,
  request: BalanceAdjustmentRequest,
): Promise<BalanceAdjustment> {
  const { address, deltaAtomic } = request;
  if (deltaAtomic === 0n) throw new PaymentStoreError('INVALID_AMOUNT', 'an adjustment of 0 changes nothing');
  const known = (await redis.exists(balances.keys.balance(address))) === 1;
  if (!known && !request.newAccount) {
    throw new PaymentStoreError(
      'ACCOUNT_NOT_FOUND',
      `the pool has no account for ${address}: check the address (give --new-account to credit it anyway)`,
      { address },
    );
  }
  const before = (await balances.getBalance(address)).balance;
  if (before + deltaAtomic < 0n) {
    throw new PaymentStoreError(
      'INSUFFICIENT_BALANCE',
      `a debit of ${-deltaAtomic} atomic units is more than the payable balance of ${address} (${before})`,
      { address, balanceAtomic: before.toString() },
    );
  }
  return {
    address,
    deltaAtomic,
    balanceBeforeAtomic: before,
    balanceAfterAtomic: before + deltaAtomic,
    applied: false,
  };
}
