import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { UnknownPayment } from '../../../src/model/payouts/payout-watch.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { snapshotPool } from '../../helpers/lost-writes.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { ADDRESSES, uniquePrefix } from '../store-fixtures.js';
import { creditedBlock } from './orphan-settlement-kit.js';

const [A, B] = ADDRESSES;

/**
 * resolve_unknown_payment itself (not only its caller) refuses to record as paid a payment whose
 * wallet record names no recipients unless the operator's recipients come with it, and keeps those.
 */
describe('resolve_unknown_payment of a payment whose wallet record names no recipients', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  async function unnamedPayment(keyPrefix: string): Promise<UnknownPayment> {
    await creditedBlock(redis, keyPrefix, {
      height: 1,
      credits: [
        [A, 3_000_000n],
        [B, 4_000_000n],
      ],
    });
    const payment: UnknownPayment = {
      txHash: '8'.repeat(64),
      batchId: '9'.repeat(32),
      blockIndex: 7,
      paymentId: '',
      feeAtomic: 80_000n,
      transfers: [],
      unnamedAtomic: 5_000_000n,
      firstSeenMs: 1,
      status: 'unresolved',
      resolvedAtMs: null,
      resolvedNote: null,
    };
    await new PayoutWatchStore({ keyPrefix }, { redis }).recordUnknownPayments([payment]);
    return payment;
  }

  /** Runs the store's resolve under the payout lock, as the operator's command does. */
  async function resolve(
    keyPrefix: string,
    request: Parameters<PayoutWatchStore['resolveUnknownPayment']>[1],
  ) {
    const journal = new PayoutStore({ keyPrefix }, { redis });
    const lockToken = 'operator';
    expect(await journal.acquireLock(lockToken, 30_000)).toBe(true);
    try {
      await new PayoutWatchStore({ keyPrefix }, { redis }).resolveUnknownPayment(
        { fencingToken: '', lockToken },
        request,
      );
    } finally {
      await journal.releaseLock(lockToken);
    }
  }

  it('refuses "paid" without recipients (RECIPIENTS_UNKNOWN), and a payment whose unnamed amount is not the one read, writing nothing', async () => {
    const keyPrefix = uniquePrefix('resolve-unnamed-refused');
    const payment = await unnamedPayment(keyPrefix);
    const before = await snapshotPool(redis, keyPrefix);
    await expect(resolve(keyPrefix, { payment, mode: 'paid', note: '', accounts: [] })).rejects.toMatchObject(
      {
        code: 'RECIPIENTS_UNKNOWN',
      },
    );
    const stale = { ...payment, unnamedAtomic: 4_000_000n };
    const recipients = [{ address: A, amountAtomic: 4_000_000n }];
    await expect(
      resolve(keyPrefix, { payment: stale, mode: 'paid', note: '', accounts: [], recipients }),
    ).rejects.toMatchObject({ code: 'BATCH_STATE' });
    expect(await snapshotPool(redis, keyPrefix)).toEqual(before);
  });

  it('debits the recipients named, records their payments and keeps them with the payment', async () => {
    const keyPrefix = uniquePrefix('resolve-unnamed-named');
    const payment = await unnamedPayment(keyPrefix);
    const recipients = [
      { address: A, amountAtomic: 1_000_000n },
      { address: B, amountAtomic: 4_000_000n },
    ];
    await resolve(keyPrefix, { payment, mode: 'paid', note: 'from the log', accounts: [], recipients });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(A)).balance).toBe(2_000_000n);
    expect((await balances.getBalance(B)).balance).toBe(0n);
    expect((await balances.getPayments(B)).map((p) => [p.txHash, p.amountAtomic])).toEqual([
      [payment.txHash, 4_000_000n],
    ]);
    const [stored] = await new PayoutWatchStore({ keyPrefix }, { redis }).listUnknownPayments();
    expect(stored).toMatchObject({
      status: 'recorded-as-paid',
      resolvedNote: 'from the log',
      unnamedAtomic: 5_000_000n,
      namedRecipients: recipients,
    });
  });
});
