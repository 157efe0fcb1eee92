import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { resolveUnknownPayment } from '../../../src/app/unknown-payment-resolution.js';
import { FEE_ASSUMED_RESOLUTION, type PayoutWriter } from '../../../src/model/payouts/payout-batch.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { expectLedgerConsistent } from '../../leader/payouts/money-invariants.js';
import { ADDRESSES, uniquePrefix } from '../store-fixtures.js';
import { batchTransfer, creditedBlock, flaggedBlock } from './orphan-settlement-kit.js';

const [A, B, C] = ADDRESSES;
const D = `${ADDRESSES[1].slice(0, -4)}dddd`;
const MINERS = [A, B, C, D];

/**
 * The sum of the balances above zero (what /metrics reports as owed) is kept in the totals by
 * every money script that changes a balance, so a scrape reads one field instead of summing the
 * payable index; these tests hold it against the index summed in full after each kind of change.
 */
describe('the kept sum of the balances above zero on a real Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  /** The payable index summed in full, the way the test knows it (one ZRANGE). */
  async function indexSum(keyPrefix: string): Promise<bigint> {
    const flat = await redis.zrange(createPaymentKeys(keyPrefix).payable, 0, -1, 'WITHSCORES');
    let sum = 0n;
    for (let i = 1; i < flat.length; i += 2) sum += BigInt(flat[i]!);
    return sum;
  }

  /** The sum as the scripts left it in the totals (no reader touched it). */
  async function keptSum(keyPrefix: string): Promise<string | null> {
    return redis.hget(createPaymentKeys(keyPrefix).totals, 'positiveBalance');
  }

  /** The kept sum is the index's and the miners' balances above zero, after `step`. */
  async function expectKept(keyPrefix: string, step: string): Promise<void> {
    const balances = new RedisBalances({ keyPrefix }, { redis });
    let positive = 0n;
    for (const address of MINERS) {
      const { balance } = await balances.getBalance(address);
      if (balance > 0n) positive += balance;
    }
    expect(await indexSum(keyPrefix), `index after ${step}`).toBe(positive);
    expect(await keptSum(keyPrefix), `kept sum after ${step}`).toBe(positive.toString());
  }

  it('stays the sum of the index through credits, adjustments, payouts, refunds, reverts, late finds, adopted payments, clawbacks and credit backs', async () => {
    const keyPrefix = uniquePrefix('kept-mix');
    const balances = new RedisBalances({ keyPrefix }, { redis });
    const payouts = new PayoutStore({ keyPrefix }, { redis });
    // A new pool: the first read stores 0, kept from then on.
    expect(await balances.positiveBalanceTotal()).toBe(0n);
    expect(await keptSum(keyPrefix)).toBe('0');

    await creditedBlock(redis, keyPrefix, {
      height: 1,
      credits: [
        [A, 1_000_000n],
        [B, 2_000_000n],
        [C, 500_000n],
        [D, 300_000n],
      ],
    });
    await expectKept(keyPrefix, 'credit_block');

    await balances.adjust({ address: A, deltaAtomic: 1_234n, note: 'bonus' });
    await balances.adjust({ address: C, deltaAtomic: -500_000n, note: 'to zero' });
    await expectKept(keyPrefix, 'adjust_balance (C to zero: off the index)');

    const writer: PayoutWriter = { fencingToken: '', lockToken: 'kept-mix-lock' };
    expect(await payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
    const id = '1'.repeat(32);
    // A all of it (to zero), B part of it; the miners are charged 100,000 of fee between them.
    await payouts.prepareBatch(writer, {
      id,
      transfers: [batchTransfer(A, 951_234n, 50_000n), batchTransfer(B, 1_450_000n, 50_000n)],
      paymentId: '',
      networkFeeAtomic: 100_000n,
      feePaidBy: 'miners',
      walletBlockCount: 100,
    });
    await expectKept(keyPrefix, 'prepare_batch');
    await payouts.markSending(writer, id);
    const txHash = '2'.repeat(64);
    // The wallet paid 80,000: 10,000 back to each miner (A back on the index).
    await payouts.markSent(writer, (await payouts.getBatch(id))!, {
      txHash,
      actualFeeAtomic: 80_000n,
      resolution: 'test',
    });
    expect((await balances.getBalance(A)).balance).toBe(10_000n);
    await expectKept(keyPrefix, 'mark_sent with fee refunds');
    await payouts.revertSent(writer, (await payouts.getBatch(id))!, 'dropped');
    await expectKept(keyPrefix, 'revert_sent');
    // Mined after all: debited again from the balances (the late path), refunded again.
    await payouts.markSent(writer, (await payouts.getBatch(id))!, {
      txHash,
      actualFeeAtomic: 80_000n,
      resolution: 'late',
    });
    await expectKept(keyPrefix, 'mark_sent of a failed batch (late found)');

    const rolled = '3'.repeat(32);
    await payouts.prepareBatch(writer, {
      id: rolled,
      transfers: [batchTransfer(D, 300_000n)],
      paymentId: '',
      networkFeeAtomic: 80_000n,
      feePaidBy: 'pool',
      walletBlockCount: 100,
    });
    await expectKept(keyPrefix, 'prepare_batch of D');
    await payouts.rollback(writer, (await payouts.getBatch(rolled))!, 'never sent', 'prepared');
    await expectKept(keyPrefix, 'rollback_batch');

    const assumed = '4'.repeat(32);
    await payouts.prepareBatch(writer, {
      id: assumed,
      transfers: [batchTransfer(D, 200_000n, 100_000n)],
      paymentId: '',
      networkFeeAtomic: 100_000n,
      feePaidBy: 'miners',
      walletBlockCount: 100,
    });
    await payouts.markSending(writer, assumed);
    await payouts.markSent(writer, (await payouts.getBatch(assumed))!, {
      txHash: '5'.repeat(64),
      actualFeeAtomic: 100_000n,
      resolution: FEE_ASSUMED_RESOLUTION,
    });
    await expectKept(keyPrefix, 'mark_sent with the fee assumed');
    expect(await payouts.settleAssumedFee(writer, (await payouts.getBatch(assumed))!, 70_000n)).toBe(true);
    expect((await balances.getBalance(D)).balance).toBe(30_000n);
    await expectKept(keyPrefix, 'settle_fee');
    await payouts.releaseLock(writer.lockToken);

    // The wallet paid B 1,000,000 that Redis did not know: recorded as paid, B goes below zero.
    const watch = new PayoutWatchStore({ keyPrefix }, { redis });
    const unknownTx = '6'.repeat(64);
    await watch.recordUnknownPayments([
      {
        txHash: unknownTx,
        batchId: '7'.repeat(32),
        blockIndex: 5,
        paymentId: '',
        feeAtomic: 80_000n,
        transfers: [{ address: B, amountAtomic: 1_000_000n }],
        unnamedAtomic: 0n,
        firstSeenMs: 1,
        status: 'unresolved',
        resolvedAtMs: null,
        resolvedNote: null,
      },
    ]);
    await resolveUnknownPayment(keyPrefix, redis, { txHash: unknownTx, mode: 'paid', note: 'test' });
    expect((await balances.getBalance(B)).balance).toBeLessThan(0n);
    await expectKept(keyPrefix, 'resolve_unknown_payment (B below zero)');

    // A block credited to B (still below zero after it) and C, then orphaned by a deep reorg and
    // clawed back: C loses it all, B has nothing above zero to give back.
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 2,
      credits: [
        [B, 40_000n],
        [C, 70_000n],
      ],
    });
    await expectKept(keyPrefix, 'credit_block of a block later orphaned');
    await settleOrphanedBlock(keyPrefix, { redis }, { hash, mode: 'clawback', note: '', dryRun: false });
    expect((await balances.getBalance(C)).balance).toBe(0n);
    await expectKept(keyPrefix, 'settle_orphaned_block (clawback)');
    // A later reorg restored the block: what was clawed back goes back.
    const restored = await new UnlockerStore({ keyPrefix }, { redis }).noteRestoredBlock({ hash, height: 2 });
    expect(restored).toBe('clawed-back');
    // The daemon the credit back asks: the main chain holds the block again.
    const daemon = { getBlockHeaderByHeight: async () => ({ hash }) as never };
    await settleOrphanedBlock(
      keyPrefix,
      { redis, daemon },
      { hash, mode: 'credit-back', note: '', dryRun: false },
    );
    expect((await balances.getBalance(C)).balance).toBe(70_000n);
    await expectKept(keyPrefix, 'credit_back_clawback');

    // B back above zero by a credit, the index summed by a reader agrees, and so does the ledger.
    await creditedBlock(redis, keyPrefix, { height: 3, credits: [[B, 5_000_000n]] });
    await expectKept(keyPrefix, 'credit_block (B from below zero to above)');
    expect(await balances.auditPositiveBalance()).toEqual({
      summedAtomic: await indexSum(keyPrefix),
      keptAtomic: await indexSum(keyPrefix),
    });
    await expectLedgerConsistent(redis, keyPrefix, MINERS);
  });

  it('on a Redis where none is kept yet (an older version wrote it), the first read sums the index once and stores it', async () => {
    const keyPrefix = uniquePrefix('kept-first');
    await creditedBlock(redis, keyPrefix, {
      height: 1,
      credits: [
        [A, 1_000n],
        [B, 2_000n],
      ],
    });
    const totals = createPaymentKeys(keyPrefix).totals;
    // As a version before the kept sum left it.
    await redis.hdel(totals, 'positiveBalance', 'payableVersion');
    // No reader yet: the scripts keep nothing they could not keep right.
    await creditedBlock(redis, keyPrefix, { height: 2, credits: [[C, 4_000n]] });
    expect(await keptSum(keyPrefix)).toBeNull();

    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.positiveBalanceTotal()).toBe(7_000n);
    expect(await keptSum(keyPrefix)).toBe('7000');
    await balances.adjust({ address: A, deltaAtomic: -1_000n, note: 'off the index' });
    expect(await keptSum(keyPrefix)).toBe('6000');
    expect(await balances.positiveBalanceTotal()).toBe(6_000n);
  });

  it('stores only a sum of one state of the index when balances change while it is summed page by page', async () => {
    const keyPrefix = uniquePrefix('kept-race');
    const miners = Array.from({ length: 40 }, (_, i) => `${A.slice(0, -3)}${String(i).padStart(3, '0')}`);
    await creditedBlock(redis, keyPrefix, {
      height: 1,
      credits: miners.map((address, i) => [address, BigInt(1_000 + i)] as const),
    });
    await redis.hdel(createPaymentKeys(keyPrefix).totals, 'positiveBalance', 'payableVersion');
    // Two members a round trip: twenty round trips, between which the writers below change scores.
    const reader = new RedisBalances(
      { keyPrefix, indexSum: { pageSize: 2, retryWaitsMs: [5, 5, 5, 5, 5, 5, 5, 5, 50, 200, 500] } },
      { redis },
    );
    const writer = new RedisBalances({ keyPrefix }, { redis });
    let writing = true;
    const writes = (async () => {
      // Moves money between the first and the last miners by rank: a sum that read some pages
      // before a move and some after would count it twice or not at all.
      for (let i = 0; writing && i < 60; i++) {
        const [from, to] = i % 2 === 0 ? [miners[0]!, miners[39]!] : [miners[39]!, miners[0]!];
        await writer.adjust({ address: from, deltaAtomic: -500n, note: 'move' });
        await writer.adjust({ address: to, deltaAtomic: 500n + BigInt(i), note: 'move' });
      }
    })();
    const read = reader.positiveBalanceTotal();
    await read.catch(() => undefined);
    writing = false;
    await writes;
    // Whatever state it read, what it stored was kept by the scripts since: the index's sum now.
    expect(await keptSum(keyPrefix)).toBe((await indexSum(keyPrefix)).toString());
    expect(await reader.positiveBalanceTotal()).toBe(await indexSum(keyPrefix));
  });

  it('gives up with INDEX_CHANGING, storing nothing, when the index never stands still while it is summed', async () => {
    const keyPrefix = uniquePrefix('kept-busy');
    const miners = Array.from({ length: 20 }, (_, i) => `${B.slice(0, -3)}${String(i).padStart(3, '0')}`);
    await creditedBlock(redis, keyPrefix, {
      height: 1,
      credits: miners.map((address) => [address, 10_000n] as const),
    });
    await redis.hdel(createPaymentKeys(keyPrefix).totals, 'positiveBalance', 'payableVersion');
    const reader = new RedisBalances(
      { keyPrefix, indexSum: { pageSize: 1, retryWaitsMs: [1, 1] } },
      { redis },
    );
    const writer = new RedisBalances({ keyPrefix }, { redis });
    let writing = true;
    const writes = (async () => {
      for (let i = 0; writing; i++) {
        await writer.adjust({ address: miners[i % 20]!, deltaAtomic: i % 40 < 20 ? 1n : -1n, note: 'busy' });
      }
    })();
    await expect(reader.positiveBalanceTotal()).rejects.toMatchObject({ code: 'INDEX_CHANGING' });
    writing = false;
    await writes;
    expect(await keptSum(keyPrefix)).toBeNull();
    // Once it stands still, it is summed and stored.
    expect(await reader.positiveBalanceTotal()).toBe(await indexSum(keyPrefix));
    expect(await keptSum(keyPrefix)).toBe((await indexSum(keyPrefix)).toString());
  });

  it('the audit finds and mends a kept sum a writer that does not keep it left behind', async () => {
    const keyPrefix = uniquePrefix('kept-audit');
    await creditedBlock(redis, keyPrefix, { height: 1, credits: [[A, 5_000n]] });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.positiveBalanceTotal()).toBe(5_000n);
    // A process of an older version credits B without keeping the sum.
    const keys = createPaymentKeys(keyPrefix);
    await redis.hincrby(keys.balance(B), 'balance', 3_000);
    await redis.zadd(keys.payable, 3_000, B);
    expect(await balances.positiveBalanceTotal()).toBe(5_000n);

    expect(await balances.auditPositiveBalance()).toEqual({ summedAtomic: 8_000n, keptAtomic: 5_000n });
    expect(await balances.positiveBalanceTotal()).toBe(8_000n);
    expect(await balances.auditPositiveBalance()).toEqual({ summedAtomic: 8_000n, keptAtomic: 8_000n });
  });

  it('drops the kept sum rather than keep it inexact past 2^53, and stores it again once back below', async () => {
    const keyPrefix = uniquePrefix('kept-exact');
    await creditedBlock(redis, keyPrefix, { height: 1, credits: [[A, 5_000n]] });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.positiveBalanceTotal()).toBe(5_000n);
    const huge = 2n ** 53n;
    await balances.adjust({ address: B, deltaAtomic: huge, note: 'past 2^53' });
    expect(await keptSum(keyPrefix)).toBeNull();
    // Summed every time while past it (the scores are doubles: B's is 2^53 exactly).
    expect(await balances.positiveBalanceTotal()).toBe(huge + 5_000n);
    expect(await keptSum(keyPrefix)).toBeNull();
    await balances.adjust({ address: B, deltaAtomic: -huge, note: 'back' });
    expect(await balances.positiveBalanceTotal()).toBe(5_000n);
    expect(await keptSum(keyPrefix)).toBe('5000');

    // Something that is no amount in its place is dropped by the next script, then summed again.
    await redis.hset(createPaymentKeys(keyPrefix).totals, 'positiveBalance', 'lots');
    expect(await balances.positiveBalanceTotal()).toBe(5_000n);
    expect(await keptSum(keyPrefix)).toBe('5000');
    await redis.hset(createPaymentKeys(keyPrefix).totals, 'positiveBalance', 'lots');
    await balances.adjust({ address: C, deltaAtomic: 1n, note: 'one' });
    expect(await keptSum(keyPrefix)).toBeNull();
    expect(await balances.positiveBalanceTotal()).toBe(5_001n);
  });
});
