import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import type { PayoutRunner, PayoutRunnerOptions } from '../../src/leader/payouts/payout-runner.js';
import type { PayoutRunSummary } from '../../src/pool/payouts/payout-reports.js';
import type { WalletClient } from '../../src/rpc/wallet-client.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { payoutRunnerFor } from '../leader/payouts/payout-runner-for.js';
import {
  devnetReceived,
  devnetTransactionsWithBatch,
  expectPaidExactlyOnce,
  expectSurplusOf100000Refunded,
  fundMiners,
  fundThreeMiners,
  integratedMinerAddress,
  minerAddress,
  walletClientFor,
} from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

const COIN = 10_000_000n;

describe('payouts through the devnet wallet', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet;
  let wallet: WalletClient;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([startTestRedis({ appendOnly: true }), startTestDevnet()]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    wallet = walletClientFor(devnet);
  });

  beforeEach(() => {
    // Change from earlier payouts becomes spendable after 10 blocks.
    devnet.control.mineBlocks(11);
  });

  afterAll(async () => {
    wallet?.close();
    redis?.disconnect();
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  function runnerFor(keyPrefix: string, opts: Partial<PayoutRunnerOptions> = {}) {
    return payoutRunnerFor(
      redis,
      keyPrefix,
      { wallet, logger: silentLogger },
      { minPayoutAtomic: COIN, ...opts },
    );
  }

  function sentBatchIds(summary: PayoutRunSummary): string[] {
    return [...summary.recovered, ...summary.batches].filter((b) => b.state === 'sent').map((b) => b.batchId);
  }

  /** Three miners above the minimum, with balances that split a fee unevenly. */
  function fundThree(label: string) {
    return fundThreeMiners(redis, uniquePrefix(label), label);
  }

  it('pays balances above the minimum in batches, once, and records history per miner and batch', async () => {
    const keyPrefix = uniquePrefix('happy');
    const miners = ['h1', 'h2', 'h3', 'h4'].map(minerAddress);
    const credits = [
      [miners[0]!, 3n * COIN],
      [miners[1]!, 2n * COIN],
      [miners[2]!, COIN + 1n],
      [miners[3]!, COIN / 2n], // below the minimum: stays
    ] as const;
    await fundMiners(redis, keyPrefix, credits);
    const runner = runnerFor(keyPrefix, { maxTransfersPerTransaction: 2, feePaidBy: 'miners' });
    const summary = await runner.runOnce();
    expect(summary.skipped).toBeNull();
    expect(summary.batches.map((b) => [b.state, b.recipients])).toEqual([
      ['sent', 2],
      ['sent', 1],
    ]);
    devnet.control.mineBlocks(1);
    for (const batchId of sentBatchIds(summary))
      expect(devnetTransactionsWithBatch(devnet, batchId)).toHaveLength(1);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    // Miners split the 80000 fee of their transaction.
    expect(await balances.getBalance(miners[0]!)).toMatchObject({
      balance: 0n,
      paid: 3n * COIN - 40_000n,
      networkFees: 40_000n,
    });
    expect(await balances.getBalance(miners[2]!)).toMatchObject({
      paid: COIN + 1n - 80_000n,
      networkFees: 80_000n,
    });
    expect((await balances.getBalance(miners[3]!)).balance).toBe(COIN / 2n);
    expect((await balances.getHistory(miners[1]!)).map((h) => h.reason)).toEqual([
      'payout-sent',
      'payout-debit',
      'block-credit',
    ]);
    expect((await balances.getPayments(miners[1]!))[0]).toMatchObject({ amountAtomic: 2n * COIN - 40_000n });
    const store = new PayoutStore({ keyPrefix }, { redis });
    const recent = await store.listRecentBatches();
    expect(recent.map((b) => b.state)).toEqual(['sent', 'sent']);
    expect(recent.every((b) => b.actualFeeAtomic === 80_000n)).toBe(true);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
    await expectLedgerConsistent(redis, keyPrefix, miners);
    // Nothing left to pay: a second run sends nothing.
    expect((await runner.runOnce()).batches).toEqual([]);
  });

  it('credits miners back what they were charged above the fee the wallet paid, in proportion, to the unit', async () => {
    const { keyPrefix, miners, credits } = await fundThree('fee-refund');
    const balances = new RedisBalances({ keyPrefix }, { redis });
    const before = await balances.getTotals();
    // Charged 100000 split 33334 / 33333 / 33333; the devnet, like walletd 1.9.3, pays 80000.
    const runner = runnerFor(keyPrefix, {
      maxTransfersPerTransaction: 3,
      feePaidBy: 'miners',
      networkFeeAtomic: 100_000n,
    });
    const summary = await runner.runOnce();
    expect(summary.batches.map((b) => [b.state, b.recipients])).toEqual([['sent', 3]]);
    const [batch] = await new PayoutStore({ keyPrefix }, { redis }).listRecentBatches();
    expect(batch?.actualFeeAtomic).toBe(80_000n);
    await expectSurplusOf100000Refunded(balances, { keyPrefix, miners, credits });
    const after = await balances.getTotals();
    // The miners paid exactly the wallet's fee; the pool's fee ledger did not move.
    expect(after.networkFees - before.networkFees).toBe(80_000n);
    expect(after.poolNetworkFees).toBe(before.poolNetworkFees);
    // Conservation: nothing created or lost, and what left the wallet is what the ledger paid.
    const held = (t: typeof before) => t.balance + t.inPayout + t.paid + t.networkFees;
    expect(held(after)).toBe(held(before));
    devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
    await expectLedgerConsistent(redis, keyPrefix, miners);
    // The refunds are balances like any other: below the minimum, they wait for later credits.
    expect((await runner.runOnce()).batches).toEqual([]);
  });

  it('lets the pool pay the part of the fee the miners were not charged (wallet fee above the charge)', async () => {
    const keyPrefix = uniquePrefix('fee-short');
    const miners = ['s1', 's2'].map(minerAddress);
    const credits = [
      [miners[0]!, 2n * COIN],
      [miners[1]!, 2n * COIN + 7n],
    ] as const;
    await fundMiners(redis, keyPrefix, credits);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    const runner = runnerFor(keyPrefix, {
      maxTransfersPerTransaction: 2,
      feePaidBy: 'miners',
      networkFeeAtomic: 60_001n,
    });
    const summary = await runner.runOnce();
    expect(summary.batches.map((b) => b.state)).toEqual(['sent']);
    // Charged 30001 + 30000; the wallet paid 80000: the pool pays the other 19999, nobody more.
    expect(await balances.getBalance(miners[1]!)).toMatchObject({ balance: 0n, networkFees: 30_001n });
    expect(await balances.getBalance(miners[0]!)).toMatchObject({ balance: 0n, networkFees: 30_000n });
    for (const address of miners) {
      expect((await balances.getHistory(address)).map((h) => h.reason)).toEqual([
        'payout-sent',
        'payout-debit',
        'block-credit',
      ]);
    }
    expect((await balances.getTotals()).poolNetworkFees).toBe(19_999n);
    devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
    await expectLedgerConsistent(redis, keyPrefix, miners);
  });

  it('pays an integrated address alone, to its standard address with the payment id in extra', async () => {
    const keyPrefix = uniquePrefix('integrated');
    const paymentId = 'ab'.repeat(32);
    const integrated = integratedMinerAddress('i1', paymentId);
    const plain = minerAddress('i2');
    await fundMiners(redis, keyPrefix, [
      [integrated, 2n * COIN],
      [plain, 2n * COIN],
    ]);
    const summary = await runnerFor(keyPrefix).runOnce();
    expect(summary.batches.map((b) => [b.state, b.recipients])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
    const txHash = summary.batches.map((b) => b.txHash!).find(Boolean)!;
    expect(txHash).toMatch(/^[0-9a-f]{64}$/);
    const records = await Promise.all(summary.batches.map((b) => wallet.getTransaction(b.txHash!)));
    expect(records.map((r) => r.paymentId).sort()).toEqual(['', paymentId]);
    expect(devnetReceived(devnet, minerAddress('i1'))).toBe(2n * COIN);
  });

  it('skips everything while the wallet is behind or unreachable, and pays afterwards', async () => {
    const keyPrefix = uniquePrefix('health');
    const miner = minerAddress('w1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    await devnet.control.setWalletAvailability({ kind: 'unreachable' });
    try {
      const down = await runnerFor(keyPrefix).runOnce();
      expect(down.skipped).toBe('wallet-unhealthy');
    } finally {
      await devnet.control.setWalletAvailability({ kind: 'up' });
    }
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(miner)).balance).toBe(2n * COIN);
    const up = await runnerFor(keyPrefix).runOnce();
    expect(up.batches.map((b) => b.state)).toEqual(['sent']);
  });

  it('rolls back a batch the wallet refuses before broadcasting (insufficient funds)', async () => {
    const keyPrefix = uniquePrefix('refused');
    const miner = minerAddress('r1');
    const huge = 1_000_000n * COIN;
    await fundMiners(redis, keyPrefix, [[miner, huge]]);
    // Skip the planner's own funds check to reach walletd's refusal.
    const runner = payoutRunnerFor(
      redis,
      keyPrefix,
      {
        wallet: {
          ...bindWallet(wallet),
          getBalance: async () => ({ ...(await wallet.getBalance()), availableBalance: Number(huge * 2n) }),
        },
        logger: silentLogger,
      },
      { minPayoutAtomic: COIN },
    );
    const summary = await runner.runOnce();
    expect(summary.batches.map((b) => b.state)).toEqual(['failed']);
    expect(await new RedisBalances({ keyPrefix }, { redis }).getBalance(miner)).toMatchObject({
      balance: huge,
      inPayout: 0n,
    });
    const failed = await new PayoutStore({ keyPrefix }, { redis }).listFailedBatches();
    expect(failed[0]?.failReason).toMatch(/Insufficient funds/);
    await expectLedgerConsistent(redis, keyPrefix, [miner]);
  });

  describe.each(['error', 'timeout', 'drop'] as const)(
    'sendTransaction fails after broadcasting (%s)',
    (mode) => {
      it('finds the batch in the wallet and pays each miner exactly once', async () => {
        const keyPrefix = uniquePrefix(`fault-${mode}`);
        const miners = [minerAddress(`${mode}-1`), minerAddress(`${mode}-2`)];
        const credits = [
          [miners[0]!, 2n * COIN],
          [miners[1]!, 3n * COIN],
        ] as const;
        await fundMiners(redis, keyPrefix, credits);
        devnet.control.failAfterBroadcast(1, mode);
        const first = await runnerFor(keyPrefix).runOnce();
        const batchIds = [...first.batches, ...first.stillOpen].map((b) => b.batchId);
        expect(new Set(batchIds).size).toBe(1);
        // Found in the wallet's mempool right after the failed call.
        expect(first.batches[0]?.state).toBe('sent');
        devnet.control.mineBlocks(1);
        const second = await runnerFor(keyPrefix).runOnce();
        expect(second.batches).toEqual([]);
        expect(devnetTransactionsWithBatch(devnet, batchIds[0]!)).toHaveLength(1);
        await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
        await expectLedgerConsistent(redis, keyPrefix, miners);
      });
    },
  );

  describe.each(['intent-written', 'sending-marked', 'wallet-called', 'result-recorded'] as const)(
    'SIGKILL after %s',
    (step) => {
      it('a fresh runner recovers and each miner is paid exactly once', async () => {
        const keyPrefix = uniquePrefix(`kill-${step}`);
        const miners = [minerAddress(`${step}-1`), minerAddress(`${step}-2`)];
        const credits = [
          [miners[0]!, 2n * COIN],
          [miners[1]!, 4n * COIN],
        ] as const;
        await fundMiners(redis, keyPrefix, credits);
        const child = await runChild({
          KILL_AT: step,
          REDIS_URL: server.url,
          KEY_PREFIX: keyPrefix,
          WALLET_PORT: new URL(devnet.walletUrl).port,
          MIN_PAYOUT_ATOMIC: String(COIN),
          // Long enough for the child's pass to reach its kill point on a loaded machine (it renews
          // the lock before each batch); short enough to wait out here.
          LOCK_TTL_MS: '3000',
        });
        expect(child.signal).toBe('SIGKILL');
        const store = new PayoutStore({ keyPrefix }, { redis });
        const [batch] = await store.listRecentBatches(1);
        expect(batch).toBeDefined();
        // Marked sending, the wallet maybe called: never resent, only rolled back once certainly
        // dead (here at once: the recovering runner waits 0 ms instead of a day).
        const recovering = () =>
          runnerFor(keyPrefix, step === 'sending-marked' ? { unresolvedRollbackAfterMs: 0 } : {});
        if (step === 'sending-marked') {
          expect((await store.getBatch(batch!.id))?.state).toBe('sending');
          expect(devnetTransactionsWithBatch(devnet, batch!.id)).toEqual([]);
        }
        const summary = await runAfterKill(recovering);
        devnet.control.mineBlocks(1);
        const txs = devnetTransactionsWithBatch(devnet, batch!.id);
        if (step === 'intent-written' || step === 'sending-marked') {
          // Never handed to the wallet: rolled back, then paid by a new batch.
          expect(txs).toEqual([]);
          expect((await store.getBatch(batch!.id))?.state).toBe('failed');
          expect(summary.batches.map((b) => b.state)).toEqual(['sent']);
        } else {
          expect(txs).toHaveLength(1);
          expect((await store.getBatch(batch!.id))?.state).toBe('sent');
          expect(summary.batches).toEqual([]);
        }
        expect(await store.listOpenBatches()).toEqual([]);
        await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
        await expectLedgerConsistent(redis, keyPrefix, miners);
      });
    },
  );

  describe('a fee surplus is refunded exactly once, whichever path marks the batch sent', () => {
    const SURPLUS_FEE = {
      feePaidBy: 'miners',
      networkFeeAtomic: 100_000n,
      maxTransfersPerTransaction: 3,
    } as const;

    /** One batch, 100000 charged, 80000 paid: 20000 back to the miners in all, once. */
    async function expectRefundedOnce(funded: Awaited<ReturnType<typeof fundThree>>) {
      const { keyPrefix, miners, credits } = funded;
      const balances = new RedisBalances({ keyPrefix }, { redis });
      let refunded = 0n;
      for (const address of miners) {
        const refunds = (await balances.getHistory(address)).filter((h) => h.reason === 'payout-fee-refund');
        expect(refunds, address).toHaveLength(1);
        refunded += refunds[0]!.amountAtomic;
      }
      expect(refunded).toBe(20_000n);
      const totals = await balances.getTotals();
      expect(totals.networkFees).toBe(80_000n);
      expect(totals.poolNetworkFees).toBe(0n);
      devnet.control.mineBlocks(1);
      await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
      await expectLedgerConsistent(redis, keyPrefix, miners);
    }

    it.each(['error', 'timeout', 'drop'] as const)(
      'found in the wallet after a failed send (%s)',
      async (mode) => {
        const funded = await fundThree(`refund-${mode}`);
        devnet.control.failAfterBroadcast(1, mode);
        const first = await runnerFor(funded.keyPrefix, SURPLUS_FEE).runOnce();
        expect([...first.batches, ...first.stillOpen]).toHaveLength(1);
        devnet.control.mineBlocks(1);
        await runnerFor(funded.keyPrefix, SURPLUS_FEE).runOnce();
        await expectRefundedOnce(funded);
      },
    );

    it.each(['wallet-called', 'result-recorded'] as const)(
      'recovered after a SIGKILL after %s',
      async (step) => {
        const funded = await fundThree(`refund-kill-${step}`);
        const child = await runChild({
          KILL_AT: step,
          REDIS_URL: server.url,
          KEY_PREFIX: funded.keyPrefix,
          WALLET_PORT: new URL(devnet.walletUrl).port,
          MIN_PAYOUT_ATOMIC: String(COIN),
          FEE_PAID_BY: SURPLUS_FEE.feePaidBy,
          NETWORK_FEE_ATOMIC: String(SURPLUS_FEE.networkFeeAtomic),
          MAX_TRANSFERS: String(SURPLUS_FEE.maxTransfersPerTransaction),
          LOCK_TTL_MS: '3000',
        });
        expect(child.signal).toBe('SIGKILL');
        const summary = await runAfterKill(() => runnerFor(funded.keyPrefix, SURPLUS_FEE));
        expect(summary.batches).toEqual([]);
        await expectRefundedOnce(funded);
      },
    );
  });
});

/**
 * A pass by a fresh runner after a SIGKILLed one. The dead runner's lock expires by itself; until
 * then a new run is refused. A wallet the loaded machine keeps from answering in time holds the
 * pass (seen once in a full run): that is not what these tests are about, so it is asked again too.
 */
async function runAfterKill(recovering: () => PayoutRunner): Promise<PayoutRunSummary> {
  let summary = await recovering().runOnce();
  const retry = (skipped: string | null) => skipped === 'locked' || skipped === 'wallet-unhealthy';
  for (let tries = 0; retry(summary.skipped) && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    summary = await recovering().runOnce();
  }
  expect(summary.skipped).toBeNull();
  return summary;
}

function bindWallet(wallet: WalletClient) {
  return {
    getStatus: () => wallet.getStatus(),
    getBalance: () => wallet.getBalance(),
    getAddresses: () => wallet.getAddresses(),
    getTransactions: wallet.getTransactions.bind(wallet),
    getTransaction: (hash: string) => wallet.getTransaction(hash),
    getUnconfirmedTransactionHashes: () => wallet.getUnconfirmedTransactionHashes(),
    sendTransaction: wallet.sendTransaction.bind(wallet),
  };
}

const CHILD_SCRIPT = fileURLToPath(new URL('./fixtures/payout-crash-child.ts', import.meta.url));
const VITE_NODE = fileURLToPath(new URL('../../node_modules/vite-node/vite-node.mjs', import.meta.url));

function runChild(
  env: Record<string, string>,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITE_NODE, CHILD_SCRIPT], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, stdout }));
  });
}
