import { describe, expect, it } from 'vitest';
import { resolveUnknownPayment } from '../../../src/app/unknown-payment-resolution.js';
import type { UnknownPayment } from '../../../src/model/payouts/payout-watch.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import { devnetReceived, fundMiners, minerAddress, unlessWalletHeld } from './payout-test-kit.js';

const COIN = 10_000_000n;

function unknownPayment(n: number, address: string, firstSeenMs: number): UnknownPayment {
  return {
    txHash: n.toString(16).padStart(64, '0'),
    batchId: n.toString(16).padStart(32, '0'),
    blockIndex: 10,
    paymentId: '',
    feeAtomic: 80_000n,
    transfers: [{ address, amountAtomic: 2n * COIN }],
    unnamedAtomic: 0n,
    firstSeenMs,
    status: 'unresolved',
    resolvedAtMs: null,
    resolvedNote: null,
  };
}

/**
 * A pool that restored an old Redis backup finds every payout made since as an unknown payment:
 * hundreds or thousands of them (one per batch). Each unresolved one holds its recipients until
 * the operator resolves it, however many there are, the oldest included.
 */
describe('unknown payments beyond the listed thousand', () => {
  const env = usePayoutDevnet();

  it('still hold their recipients, and can be resolved', async () => {
    const keyPrefix = uniquePrefix('unknown-many');
    const miner = minerAddress('unknown-many-oldest');
    await fundMiners(env.redis, keyPrefix, [[miner, 2n * COIN]]);
    const watch = new PayoutWatchStore({ keyPrefix }, { redis: env.redis });
    // The oldest unknown payment paid `miner`; 1000 newer ones paid other miners.
    const payments = [unknownPayment(1, miner, 1_000)];
    for (let n = 2; n <= 1_001; n++) payments.push(unknownPayment(n, minerAddress(`other-${n}`), 1_000 + n));
    expect(await watch.recordUnknownPayments(payments)).toHaveLength(1_001);

    const runner = payoutRunnerFor(env.redis, keyPrefix, { wallet: env.wallet, logger: silentLogger });
    const summary = await unlessWalletHeld(() => runner.runOnce());
    expect(summary.batches).toEqual([]);
    expect(summary.skippedMiners.map((h) => h.address)).toEqual([miner]);
    expect(devnetReceived(env.devnet, miner)).toBe(0n);

    // The operator can resolve it: it is found, not "no unresolved unknown payment".
    await resolveUnknownPayment(keyPrefix, env.redis, {
      txHash: payments[0]!.txHash,
      mode: 'paid',
      note: 'paid before the restored backup',
    });
    expect(await new RedisBalances({ keyPrefix }, { redis: env.redis }).getBalance(miner)).toMatchObject({
      balance: 0n,
      paid: 2n * COIN,
    });
  });
});
