import { describe, expect, it } from 'vitest';
import { adjustMinerBalance } from '../../../src/app/balance-adjustment.js';
import { resolveUnknownPayment } from '../../../src/app/unknown-payment-resolution.js';
import type { PayoutStep } from '../../../src/leader/payouts/batch-sender.js';
import type { Logger } from '../../../src/log/logger.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import {
  devnetReceived,
  devnetTransactionsWithBatch,
  expectPaidExactlyOnce,
  fundMiners,
  integratedMinerAddress,
  minerAddress,
  unlessWalletHeld,
} from './payout-test-kit.js';
import {
  paidThenLost as paidThenLostIn,
  printedReport,
  walletRebuilds as walletRebuildsIn,
} from './rebuilt-record-kit.js';

const COIN = 10_000_000n;
const ERROR = 50;

/**
 * walletd that lost its record of a payout transaction (reset, restored from an older backup)
 * rebuilds it from the chain (WalletGreen::transactionUpdated): its transfers name only the
 * wallet's own addresses, and everything the miners got is one transfer with an EMPTY address.
 * The batch is still recognised by its tag; when Redis lost the batch too, nobody can tell from
 * the wallet whom it paid, so no miner is paid until the operator resolves it.
 */
describe('a payout transaction whose wallet record walletd rebuilt from the chain', () => {
  const env = usePayoutDevnet();

  const runner = (
    keyPrefix: string,
    logger: Logger = silentLogger,
    reached?: (step: PayoutStep) => Promise<void>,
  ) =>
    payoutRunnerFor(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger, ...(reached ? { faults: { reached } } : {}) },
      { minPayoutAtomic: COIN },
    );

  const walletRebuilds = (txHash: string) => walletRebuildsIn(env, txHash);
  const paidThenLost = async (keyPrefix: string) =>
    (await paidThenLostIn(env, keyPrefix, (reached) => runner(keyPrefix, silentLogger, reached))).txHash;

  it('settles an open batch as sent by its tag, without a false "lacks an expected transfer" error', async () => {
    const keyPrefix = uniquePrefix('rebuilt-open');
    const miners = [minerAddress('rebuilt-open-1'), minerAddress('rebuilt-open-2')];
    const credits = [
      [miners[0]!, 2n * COIN],
      [miners[1]!, 3n * COIN],
    ] as const;
    await fundMiners(env.redis, keyPrefix, credits);
    // The process dies right after the wallet paid: the batch stays open (sending).
    await expect(
      runner(keyPrefix, silentLogger, async (step) => {
        if (step === 'wallet-called') throw new Error('process killed');
      }).runOnce(),
    ).rejects.toThrow('process killed');
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const [open] = await store.listOpenBatches();
    const [txHash] = devnetTransactionsWithBatch(env.devnet, open!.id);
    walletRebuilds(txHash!);
    const record = await env.wallet.getTransaction(txHash!);
    expect(record.transfers.some((t) => t.address === '')).toBe(true);

    const logs = captureLogs('info');
    const summary = await unlessWalletHeld(() => runner(keyPrefix, logs.logger).runOnce());
    expect(summary.recovered.map((b) => [b.batchId, b.state, b.txHash])).toEqual([
      [open!.id, 'sent', txHash],
    ]);
    expect(summary.batches).toEqual([]);
    expect(logs.records.filter((r) => Number(r['level']) >= ERROR)).toEqual([]);
    // Told what it could and could not check.
    expect(logs.records.some((r) => r['batchId'] === open!.id && /rebuilt/.test(String(r['msg'])))).toBe(
      true,
    );
    env.devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);
  });

  it('Redis lost the batch too: no miner is paid twice, nothing is recorded for address "", the report says so, and the operator resolves it', async () => {
    const keyPrefix = uniquePrefix('rebuilt-lost');
    const miners = [minerAddress('rebuilt-lost-1'), minerAddress('rebuilt-lost-2')];
    await fundMiners(env.redis, keyPrefix, [
      [miners[0]!, 2n * COIN],
      [miners[1]!, 3n * COIN],
    ]);
    const txHash = await paidThenLost(keyPrefix);
    walletRebuilds(txHash);
    const received = miners.map((m) => devnetReceived(env.devnet, m));
    expect(received.every((r) => r > 0n)).toBe(true);

    const logs = captureLogs('info');
    for (let pass = 0; pass < 3; pass++) {
      const next = await unlessWalletHeld(() => runner(keyPrefix, logs.logger).runOnce());
      expect(next.batches).toEqual([]);
      expect(next.skippedMiners.map((m) => m.address).sort()).toEqual([...miners].sort());
      expect(next.skippedMiners[0]!.reason).toContain(txHash);
    }
    expect(miners.map((m) => devnetReceived(env.devnet, m))).toEqual(received);
    const [unknown] = await new PayoutWatchStore({ keyPrefix }, { redis: env.redis }).listUnknownPayments();
    // What the miners got, with no address to record it under.
    expect(unknown).toMatchObject({
      txHash,
      status: 'unresolved',
      transfers: [],
      unnamedAtomic: received[0]! + received[1]!,
    });
    const told = logs.records.filter((r) => r['txHash'] === txHash && Number(r['level']) >= ERROR);
    expect(told).toHaveLength(1);
    expect(String(told[0]!['msg'])).toMatch(/cannot name/);

    const printed = await printedReport(env, keyPrefix);
    expect(printed.healthy).toBe(false);
    const text = printed.lines.join('\n');
    expect(text).toContain(txHash);
    expect(text).toMatch(/recipients unknown/);
    // Where to find whom it paid, and the command that records it.
    expect(text).toContain('payout batch sending');
    expect(text).toContain('--recipients FILE');

    // --paid alone cannot say whom to debit; debiting the miners by hand, then dismissing it, still works.
    await expect(
      resolveUnknownPayment(keyPrefix, env.redis, { txHash, mode: 'paid', note: 'test' }),
    ).rejects.toMatchObject({ code: 'RECIPIENTS_UNKNOWN' });
    for (const [i, miner] of miners.entries()) {
      await adjustMinerBalance(
        keyPrefix,
        { redis: env.redis },
        {
          address: miner,
          deltaAtomic: -received[i]!,
          note: 'paid by the lost batch',
          dryRun: false,
          newAccount: false,
        },
      );
    }
    await resolveUnknownPayment(keyPrefix, env.redis, { txHash, mode: 'dismiss', note: 'debited by hand' });
    const after = await unlessWalletHeld(() => runner(keyPrefix).runOnce());
    expect(after.skipped).toBeNull();
    expect(miners.map((m) => devnetReceived(env.devnet, m))).toEqual(received);
  });

  it('Redis lost the batch of an integrated-address miner: never paid twice, `payout resolve --paid` alone refuses with a typed code (no address decode error), and --recipients naming its standard address debits the integrated account', async () => {
    const keyPrefix = uniquePrefix('rebuilt-pid');
    const paymentId = 'cd'.repeat(32);
    const miner = integratedMinerAddress('rebuilt-pid', paymentId);
    await fundMiners(env.redis, keyPrefix, [[miner, 2n * COIN]]);
    const txHash = await paidThenLost(keyPrefix);
    walletRebuilds(txHash);
    const standard = minerAddress('rebuilt-pid');
    const received = devnetReceived(env.devnet, standard);

    for (let pass = 0; pass < 2; pass++) {
      expect((await unlessWalletHeld(() => runner(keyPrefix).runOnce())).batches).toEqual([]);
    }
    expect(devnetReceived(env.devnet, standard)).toBe(received);
    await expect(
      resolveUnknownPayment(keyPrefix, env.redis, { txHash, mode: 'paid', note: 'test' }),
    ).rejects.toMatchObject({ code: 'RECIPIENTS_UNKNOWN' });
    // Named by the standard address the wallet paid, it is the integrated account that is debited.
    await resolveUnknownPayment(keyPrefix, env.redis, {
      txHash,
      mode: 'paid',
      note: 'test',
      recipients: `${standard} ${received}\n`,
    });
    const balance = await new RedisBalances({ keyPrefix }, { redis: env.redis }).getBalance(miner);
    expect(balance.paid).toBe(received);
    expect(balance.balance + balance.paid + balance.networkFees).toBe(2n * COIN);
    expect((await unlessWalletHeld(() => runner(keyPrefix).runOnce())).skipped).toBeNull();
    expect(devnetReceived(env.devnet, standard)).toBe(received);
  });
});
