import { describe, expect, it } from 'vitest';
import type { PayoutRunnerOptions } from '../../../src/leader/payouts/payout-runner.js';
import {
  FEE_ASSUMED_RESOLUTION,
  FEE_READ_LATER_RESOLUTION,
  type PayoutBatch,
} from '../../../src/model/payouts/payout-batch.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { threeMinersPayFeeRunner } from './payout-runner-for.js';
import { expectPaidExactlyOnce, expectSurplusOf100000Refunded, fundThreeMiners } from './payout-test-kit.js';

/**
 * A batch whose fee the wallet could not tell right after the send is recorded with the configured
 * fee (assumed); a later pass reads the fee the wallet really paid and settles the batch once: the
 * surplus back to its miners as mark_sent would have given it, or the pool's part of the fee when
 * the wallet paid more than the charge. The devnet wallet, like walletd 1.9.3, always pays 80000.
 */
describe('an assumed network fee settled by a later pass', () => {
  const env = usePayoutDevnet();

  /** Three miners in one batch, charged `networkFeeAtomic` between them. */
  async function payThree(label: string, networkFeeAtomic: bigint, opts: Partial<PayoutRunnerOptions> = {}) {
    const { keyPrefix, miners, credits } = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const runner = threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: silentLogger },
      networkFeeAtomic,
      opts,
    );
    const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const onlyBatch = async (): Promise<PayoutBatch> => {
      const [batch, ...others] = await store.listRecentBatches();
      expect(others).toEqual([]);
      return batch!;
    };
    const refundsOf = async (address: string) =>
      (await balances.getHistory(address)).filter((h) => h.reason === 'payout-fee-refund');
    return { keyPrefix, miners, credits, runner, balances, store, onlyBatch, refundsOf };
  }

  /** The first pass: sent, but the wallet cannot tell its fee right after the send. */
  async function sendWithFeeUnread(paid: Awaited<ReturnType<typeof payThree>>, failedReads: number) {
    env.devnet.control.failReadsOfNextSend(failedReads);
    const first = await paid.runner.runOnce();
    expect(first.batches.map((b) => [b.state, b.recipients])).toEqual([['sent', 3]]);
    const batch = await paid.onlyBatch();
    expect(batch).toMatchObject({ state: 'sent', resolution: FEE_ASSUMED_RESOLUTION });
    for (const address of paid.miners) expect(await paid.refundsOf(address)).toEqual([]);
    return batch;
  }

  it('refunds the surplus at the next pass, to the same miners as mark_sent would, once', async () => {
    const paid = await payThree('settle', 100_000n);
    const { miners, credits, balances, onlyBatch, refundsOf } = paid;
    const before = await balances.getTotals();
    const sent = await sendWithFeeUnread(paid, 1);
    expect(sent.actualFeeAtomic).toBe(100_000n);
    env.devnet.control.mineBlocks(1);

    const second = await paid.runner.runOnce();
    expect(second.batches).toEqual([]);
    const settled = await onlyBatch();
    expect(settled).toMatchObject({
      state: 'sent',
      txHash: sent.txHash,
      actualFeeAtomic: 80_000n,
      resolution: FEE_READ_LATER_RESOLUTION,
    });
    await expectSurplusOf100000Refunded(balances, paid);
    let refunded = 0n;
    for (const [index, address] of settled.transfers.map((t) => t.address).entries()) {
      const refund = settled.feeRefundsAtomic?.[index];
      refunded += refund ?? 0n;
      // Once, under the batch's transaction, and the payment record changed in place.
      expect(await refundsOf(address)).toEqual([
        expect.objectContaining({ amountAtomic: refund, ref: `${sent.id}:${sent.txHash}` }),
      ]);
      expect(await balances.getPayments(address)).toEqual([expect.objectContaining({ batchId: sent.id })]);
    }
    expect(refunded).toBe(20_000n);
    const after = await balances.getTotals();
    expect(after.networkFees - before.networkFees).toBe(80_000n);
    expect(after.poolNetworkFees).toBe(before.poolNetworkFees);

    // Settled once: later passes change nothing.
    env.devnet.control.mineBlocks(1);
    await paid.runner.runOnce();
    for (const address of miners) expect(await refundsOf(address)).toHaveLength(1);
    expect(await balances.getTotals()).toEqual(after);
    await expectPaidExactlyOnce(env.devnet, env.redis, paid.keyPrefix, credits);
    await expectLedgerConsistent(env.redis, paid.keyPrefix, miners);
  });

  it('tries again at each pass while the wallet still cannot tell the fee', async () => {
    const paid = await payThree('settle-retry', 100_000n);
    await sendWithFeeUnread(paid, 2);
    env.devnet.control.mineBlocks(1);
    await paid.runner.runOnce();
    expect(await paid.onlyBatch()).toMatchObject({
      resolution: FEE_ASSUMED_RESOLUTION,
      actualFeeAtomic: 100_000n,
    });
    for (const address of paid.miners) expect(await paid.refundsOf(address)).toEqual([]);

    await paid.runner.runOnce();
    expect(await paid.onlyBatch()).toMatchObject({
      resolution: FEE_READ_LATER_RESOLUTION,
      actualFeeAtomic: 80_000n,
    });
    await expectSurplusOf100000Refunded(paid.balances, paid);
    for (const address of paid.miners) expect(await paid.refundsOf(address)).toHaveLength(1);
    await expectLedgerConsistent(env.redis, paid.keyPrefix, paid.miners);
  });

  it('lets the pool pay what the wallet paid above the charge: settled, nothing refunded', async () => {
    // Charged 20001 + 20000 + 20000; the wallet paid 80000.
    const paid = await payThree('settle-short', 60_001n);
    const before = await paid.balances.getTotals();
    await sendWithFeeUnread(paid, 1);
    expect((await paid.balances.getTotals()).poolNetworkFees).toBe(before.poolNetworkFees);
    env.devnet.control.mineBlocks(1);
    await paid.runner.runOnce();
    expect(await paid.onlyBatch()).toMatchObject({
      resolution: FEE_READ_LATER_RESOLUTION,
      actualFeeAtomic: 80_000n,
      feeRefundsAtomic: [0n, 0n, 0n],
    });
    for (const address of paid.miners) expect(await paid.refundsOf(address)).toEqual([]);
    const after = await paid.balances.getTotals();
    expect(after.poolNetworkFees - before.poolNetworkFees).toBe(19_999n);
    expect(after.networkFees - before.networkFees).toBe(60_001n);
    await expectPaidExactlyOnce(env.devnet, env.redis, paid.keyPrefix, paid.credits);
    await expectLedgerConsistent(env.redis, paid.keyPrefix, paid.miners);
  });

  it('never refunds a batch whose transaction the wallet dropped: it is reverted instead', async () => {
    // The wallet dropped it unmined: reverted at once (the pass may then pay its miners anew, in a
    // new batch with its own fee read).
    const paid = await payThree('settle-dropped', 100_000n, { unresolvedRollbackAfterMs: 0 });
    const sent = await sendWithFeeUnread(paid, 1);
    expect(env.devnet.control.dropFromMempool(sent.txHash!)).toBe(true);
    await paid.runner.runOnce();
    const reverted = await paid.store.getBatch(sent.id);
    expect(reverted).toMatchObject({ state: 'failed', resolution: FEE_ASSUMED_RESOLUTION });
    for (const address of paid.miners) {
      const refunds = (await paid.refundsOf(address)).filter((h) => h.ref.startsWith(sent.id));
      expect(refunds).toEqual([]);
    }
    await expectLedgerConsistent(env.redis, paid.keyPrefix, paid.miners);
  });
});
