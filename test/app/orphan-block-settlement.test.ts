import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readMoneyReport } from '../../src/app/money-report.js';
import { settleOrphanedBlock } from '../../src/app/orphan-block-settlement.js';
import { formatMoneyReport } from '../../src/cli/commands/report.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { CreditedBlocksReader } from '../../src/store/payments/credited-blocks-reader.js';
import { OrphanSettlementStore } from '../../src/store/payments/orphan-settlement-store.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { createShareKeys } from '../../src/store/shares/share-keys.js';
import { useTestRedisClient } from '../helpers/redis-server.js';
import { walletHolding } from '../helpers/wallet-holding.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { minerAddress } from '../leader/payouts/payout-test-kit.js';
import { creditedBlock, flaggedBlock, paidOut } from '../store/payments/orphan-settlement-kit.js';
import { blockHash, uniquePrefix } from '../store/store-fixtures.js';

const COIN = 10_000_000n;
const A = minerAddress('settle-a');
const B = minerAddress('settle-b');
const FEE_ADDRESS = minerAddress('settle-fee');
const MINERS = [A, B, FEE_ADDRESS];

/** A's 6 coins, B's 3 and the fee address's 1, from one block. */
const CREDITS = [
  [A, 6n * COIN],
  [B, 3n * COIN],
  [FEE_ADDRESS, COIN],
] as const;

/** The report's call to action while a flagged block waits for its settlement. */
const NEEDS_SETTLING = 'settle each: fuego-pool block settle HASH';

function reportText(report: Parameters<typeof formatMoneyReport>[0]): string {
  return formatMoneyReport(report, Date.now()).lines.join('\n');
}

describe('settling a credited block orphaned by a deep reorg', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  async function report(keyPrefix: string) {
    return readMoneyReport(keyPrefix, {
      redis,
      wallet: walletHolding(100n * COIN),
      durability: { replicas: 0, timeoutMs: 100 },
    });
  }

  /** Every money key of the pool and the block's record, to show that a refusal changed nothing. */
  async function snapshot(keyPrefix: string, hash: string) {
    const keys = createPaymentKeys(keyPrefix);
    const shares = createShareKeys(keyPrefix);
    const balances = await Promise.all(MINERS.map((address) => redis.hgetall(keys.balance(address))));
    const histories = await Promise.all(MINERS.map((address) => redis.xlen(keys.history(address))));
    return {
      balances,
      histories,
      totals: await redis.hgetall(keys.totals),
      block: await redis.hgetall(shares.block(hash)),
      flagged: await redis.zrange(keys.blocksOrphanedAfterCredit, 0, -1),
      settled: await redis.zrange(keys.blocksOrphanSettled, 0, -1),
      clawback: await redis.hgetall(keys.blockClawback(hash)),
    };
  }

  it('--absorb: the miners keep their credits, the block is settled and leaves the flagged list', async () => {
    const keyPrefix = uniquePrefix('settle-absorb');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 70,
      credits: CREDITS,
      feeAddress: FEE_ADDRESS,
    });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    const reader = new CreditedBlocksReader({ keyPrefix }, { redis });
    expect(reportText(await report(keyPrefix))).toContain(`${hash}  reward 10.0000000 XFG`);
    expect(reportText(await report(keyPrefix))).toContain(NEEDS_SETTLING);

    const before = await snapshot(keyPrefix, hash);
    const dry = await settleOrphanedBlock(
      keyPrefix,
      { redis },
      { hash, mode: 'absorb', note: '', dryRun: true },
    );
    expect(dry).toMatchObject({ applied: false, changeAtomic: 0n, uncollectedAtomic: 10n * COIN });
    expect(await snapshot(keyPrefix, hash)).toEqual(before);

    const done = await settleOrphanedBlock(
      keyPrefix,
      { redis, clock: () => 1_800_000_000_000 },
      { hash, mode: 'absorb', note: 'pool pays', dryRun: false },
    );
    expect(done).toMatchObject({ applied: true, changeAtomic: 0n, uncollectedAtomic: 10n * COIN });
    expect((await balances.getBalance(A)).balance).toBe(6n * COIN);
    expect((await balances.getBalance(B)).balance).toBe(3n * COIN);
    expect((await balances.getHistory(A)).map((e) => e.reason)).toEqual(['block-credit']);
    expect(await reader.countOrphanedAfterCredit()).toBe(0);
    expect(await reader.listSettledOrphans(10)).toEqual([
      expect.objectContaining({
        hash,
        settlement: 'absorbed',
        settledAtMs: 1_800_000_000_000,
        settleNote: 'pool pays',
        creditedAtomic: 10n * COIN,
        clawedBackAtomic: 0n,
        uncollectedAtomic: 10n * COIN,
        restoredAtMs: null,
      }),
    ]);
    await expectLedgerConsistent(redis, keyPrefix, MINERS);
    const text = reportText(await report(keyPrefix));
    expect(text).toContain(`height 70  ${hash}  absorbed 2027-01-15T08:00:00.000Z  credited 10.0000000 XFG`);
    expect(text).not.toContain(NEEDS_SETTLING);
  });

  it('--clawback: each credit is debited, never below zero; what was paid out is uncollected; totals and history agree', async () => {
    const keyPrefix = uniquePrefix('settle-clawback');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 71,
      credits: CREDITS,
      feeAddress: FEE_ADDRESS,
    });
    // B was paid 2 of its 3 coins before the reorg: only 1 is left to take back.
    await paidOut(redis, keyPrefix, B, 2n * COIN);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(B)).balance).toBe(COIN);

    const dry = await settleOrphanedBlock(
      keyPrefix,
      { redis },
      { hash, mode: 'clawback', note: '', dryRun: true },
    );
    expect(dry.lines).toEqual([
      {
        address: A,
        creditedAtomic: 6n * COIN,
        balanceAtomic: 6n * COIN,
        changeAtomic: -6n * COIN,
        uncollectedAtomic: 0n,
      },
      {
        address: B,
        creditedAtomic: 3n * COIN,
        balanceAtomic: COIN,
        changeAtomic: -COIN,
        uncollectedAtomic: 2n * COIN,
      },
      {
        address: FEE_ADDRESS,
        creditedAtomic: COIN,
        balanceAtomic: COIN,
        changeAtomic: -COIN,
        uncollectedAtomic: 0n,
      },
    ]);
    expect((await balances.getBalance(A)).balance).toBe(6n * COIN);

    const done = await settleOrphanedBlock(
      keyPrefix,
      { redis },
      { hash, mode: 'clawback', note: 'n', dryRun: false },
    );
    expect(done).toMatchObject({
      applied: true,
      changeAtomic: -8n * COIN,
      uncollectedAtomic: 2n * COIN,
      lines: dry.lines,
    });
    expect(await balances.getBalance(A)).toMatchObject({ credited: 0n, balance: 0n });
    expect(await balances.getBalance(B)).toMatchObject({ credited: 2n * COIN, balance: 0n, paid: 2n * COIN });
    expect(await balances.getBalance(FEE_ADDRESS)).toMatchObject({ credited: 0n, balance: 0n });
    const [clawedA] = await balances.getHistory(A);
    expect(clawedA).toMatchObject({
      reason: 'orphan-clawback',
      amountAtomic: -6n * COIN,
      ref: hash,
      balanceAfterAtomic: 0n,
    });
    expect((await balances.getHistory(B))[0]).toMatchObject({
      reason: 'orphan-clawback',
      amountAtomic: -COIN,
      ref: hash,
    });
    const totals = await balances.getTotals();
    expect(totals).toMatchObject({
      credited: 2n * COIN,
      balance: 0n,
      adjustments: -8n * COIN,
      rewards: 10n * COIN,
    });
    await expectLedgerConsistent(redis, keyPrefix, MINERS);
    // Nobody left to pay: the payable index is empty.
    expect(await redis.zcard(createPaymentKeys(keyPrefix).payable)).toBe(0);

    const reader = new CreditedBlocksReader({ keyPrefix }, { redis });
    expect(await reader.countOrphanedAfterCredit()).toBe(0);
    const [settled] = await reader.listSettledOrphans(10);
    expect(settled).toMatchObject({
      settlement: 'clawed-back',
      clawedBackAtomic: 8n * COIN,
      uncollectedAtomic: 2n * COIN,
    });
    const text = reportText(await report(keyPrefix));
    expect(text).toContain('clawed back 8.0000000 XFG  uncollected 2.0000000 XFG');
    expect(text).not.toContain(NEEDS_SETTLING);
  });

  it('refuses an unknown hash, a block not flagged, a second settlement and a held payout lock, changing nothing', async () => {
    const keyPrefix = uniquePrefix('settle-refusals');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 72,
      credits: CREDITS,
      feeAddress: FEE_ADDRESS,
    });
    const onChain = await creditedBlock(redis, keyPrefix, { height: 73, credits: [[A, COIN]] });
    const settle = (blockHashToSettle: string, mode: 'absorb' | 'clawback' | 'credit-back', dryRun = false) =>
      settleOrphanedBlock(keyPrefix, { redis }, { hash: blockHashToSettle, mode, note: '', dryRun });
    const before = await snapshot(keyPrefix, hash);

    await expect(settle(blockHash(0xdead), 'absorb')).rejects.toMatchObject({ code: 'BLOCK_NOT_FOUND' });
    await expect(settle(blockHash(0xdead), 'clawback', true)).rejects.toMatchObject({
      code: 'BLOCK_NOT_FOUND',
    });
    await expect(settle(onChain, 'clawback')).rejects.toMatchObject({ code: 'BLOCK_NOT_FLAGGED' });
    await expect(settle(hash, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
    const payouts = new PayoutStore({ keyPrefix }, { redis });
    expect(await payouts.acquireLock('a-payout-pass', 60_000)).toBe(true);
    await expect(settle(hash, 'clawback')).rejects.toMatchObject({ code: 'LOCK_LOST' });
    await payouts.releaseLock('a-payout-pass');
    expect(await snapshot(keyPrefix, hash)).toEqual(before);

    await settle(hash, 'clawback');
    const settled = await snapshot(keyPrefix, hash);
    await expect(settle(hash, 'clawback')).rejects.toMatchObject({ code: 'BLOCK_SETTLED' });
    await expect(settle(hash, 'absorb')).rejects.toMatchObject({ code: 'BLOCK_SETTLED' });
    expect(await snapshot(keyPrefix, hash)).toEqual(settled);
    await expectLedgerConsistent(redis, keyPrefix, MINERS);
  });

  it('the script itself refuses a settlement that skips the checks: settled twice, credits not the record, lock not held', async () => {
    const keyPrefix = uniquePrefix('settle-script');
    const hash = await flaggedBlock(redis, keyPrefix, {
      height: 74,
      credits: CREDITS,
      feeAddress: FEE_ADDRESS,
    });
    const store = new OrphanSettlementStore({ keyPrefix }, { redis });
    const payouts = new PayoutStore({ keyPrefix }, { redis });
    const writer = { fencingToken: '', lockToken: 'operator' };
    const credits = new Map<string, bigint>(CREDITS);
    const before = await snapshot(keyPrefix, hash);
    await expect(store.settle(writer, { hash, mode: 'clawback', credits, note: '' })).rejects.toMatchObject({
      code: 'LOCK_LOST',
    });
    expect(await payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
    const short = new Map(credits);
    short.delete(B);
    await expect(
      store.settle(writer, { hash, mode: 'clawback', credits: short, note: '' }),
    ).rejects.toMatchObject({
      code: 'BLOCK_STATE',
    });
    const wrong = new Map(credits).set(A, 7n * COIN);
    await expect(
      store.settle(writer, { hash, mode: 'clawback', credits: wrong, note: '' }),
    ).rejects.toMatchObject({
      code: 'BLOCK_STATE',
    });
    expect(await snapshot(keyPrefix, hash)).toEqual(before);
    await store.settle(writer, { hash, mode: 'absorb', credits, note: '' });
    await expect(store.settle(writer, { hash, mode: 'clawback', credits, note: '' })).rejects.toMatchObject({
      code: 'BLOCK_SETTLED',
    });
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(A)).balance).toBe(6n * COIN);
  });
});
