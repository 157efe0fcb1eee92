import { describe, expect, it } from 'vitest';
import { readMoneyReport } from '../../../src/app/money-report.js';
import { settleWalletMissingBatch } from '../../../src/app/wallet-missing-resolution.js';
import { formatMoneyReport } from '../../../src/cli/commands/report.js';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import {
  FEE_ASSUMED_RESOLUTION,
  FEE_READ_LATER_RESOLUTION,
} from '../../../src/model/payouts/payout-batch.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { threeMinersPayFeeRunner } from './payout-runner-for.js';
import {
  expectPaidExactlyOnce,
  expectSurplusOf100000Refunded,
  fundThreeMiners,
  unlessWalletHeld,
} from './payout-test-kit.js';

const WARN = 40;

/**
 * A sent batch whose transaction the wallet answers 29 "Object not found" for (walletd reset and
 * rescanning, or its wallet file restored from a backup older than the send): the miners were
 * debited and the transaction may well be on chain or in the network's pool, so nothing is
 * refunded on that alone. It is reported (once in the log and as a payout-unknown-to-wallet
 * notification, in `fuego-pool report`) until the wallet finds it again, after which the watch
 * confirms it as usual.
 */
describe('a sent batch the wallet has no record of', () => {
  const env = usePayoutDevnet();

  it('is not refunded, is reported once (log and notification event) and in the money report, and confirms once the wallet finds it again', async () => {
    const label = 'wallet-missing';
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const { keyPrefix, credits } = funded;
    const logs = captureLogs('info');
    const runner = threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: logs.logger },
      80_000n,
    );
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
    // The leader's loop around the runner: it publishes what each pass reports.
    const events = createPoolEventBus(() => undefined);
    const published: PoolEventMap['payout-unknown-to-wallet'][] = [];
    events.subscribe('payout-unknown-to-wallet', (p) => published.push(p));
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      { unlocker: undefined as never, payouts: runner, events, logger: logs.logger },
    );
    const first = await unlessWalletHeld(() => loop.payOnce());
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const batchId = first.batches[0]!.batchId;
    const sent = (await store.getBatch(batchId))!;
    const txHash = sent.txHash!;

    // walletd reset, its rescan stalled below the block that mines the transaction.
    env.devnet.control.holdWalletScan();
    env.devnet.control.forgetWalletTransaction(txHash);
    // Mined deep on chain; the wallet does not know it.
    env.devnet.control.mineBlocks(11);
    const before = await Promise.all(credits.map(([address]) => balances.getBalance(address)));
    for (let pass = 0; pass < 3; pass++) await unlessWalletHeld(() => loop.payOnce());
    // Once across the passes: when the watch marked it.
    expect(published).toEqual([
      {
        batchId,
        transactionHash: txHash,
        recipients: 3,
        amountAtomic: sent.totalAmountAtomic,
        sentAtMs: sent.resolvedAtMs,
        timestampMs: expect.any(Number),
      },
    ]);

    expect(await store.getBatch(batchId)).toMatchObject({ state: 'sent', txHash });
    expect((await store.listUnconfirmedSent()).map((b) => b.id)).toContain(batchId);
    expect(await Promise.all(credits.map(([address]) => balances.getBalance(address)))).toEqual(before);
    const warnings = logs.records.filter((r) => r['batchId'] === batchId && Number(r['level']) >= WARN);
    expect(warnings).toHaveLength(1);

    const report = async () =>
      formatMoneyReport(
        await readMoneyReport(keyPrefix, {
          redis: env.redis,
          wallet: env.wallet,
          durability: { replicas: 0, timeoutMs: 1_000 },
        }),
        Date.now(),
      );
    const missing = await report();
    expect(missing.healthy).toBe(false);
    const line = missing.lines.find((l) => l.includes(batchId));
    expect(line).toContain(txHash);
    expect(line).toMatch(/wallet has no record/);
    const advice = missing.lines.find((l) => l.includes('fuego-pool payout resolve TXHASH --paid'));
    expect(advice).toContain('--refund');

    env.devnet.control.releaseWalletScan();
    await unlessWalletHeld(() => loop.payOnce());
    expect((await store.listUnconfirmedSent()).map((b) => b.id)).not.toContain(batchId);
    expect(published).toHaveLength(1);
    const found = await report();
    expect(found.lines.some((l) => l.includes(batchId))).toBe(false);
    expect(logs.records.filter((r) => r['batchId'] === batchId && Number(r['level']) >= WARN)).toHaveLength(
      1,
    );
    expect(logs.records.some((r) => r['batchId'] === batchId && /found again/.test(String(r['msg'])))).toBe(
      true,
    );
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(
      env.redis,
      keyPrefix,
      credits.map(([address]) => address),
    );
  });

  it('settled with `payout resolve --paid` while its fee is assumed: the fee fuegod shows it paid is recorded and the surplus refunded, once', async () => {
    const label = 'wallet-missing-fee';
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const { keyPrefix, miners, credits } = funded;
    // Charged 100000 between the three; the devnet wallet, like walletd 1.9.3, pays 80000.
    const runner = threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: silentLogger },
      100_000n,
    );
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const balances = new RedisBalances({ keyPrefix }, { redis: env.redis });
    const totalsBefore = await balances.getTotals();
    env.devnet.control.failReadsOfNextSend(1);
    const first = await unlessWalletHeld(() => runner.runOnce());
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const batchId = first.batches[0]!.batchId;
    const sent = (await store.getBatch(batchId))!;
    expect(sent).toMatchObject({ resolution: FEE_ASSUMED_RESOLUTION, actualFeeAtomic: 100_000n });
    const txHash = sent.txHash!;

    env.devnet.control.holdWalletScan();
    env.devnet.control.forgetWalletTransaction(txHash);
    env.devnet.control.mineBlocks(11);
    for (let pass = 0; pass < 3 && !(await store.walletMissingSince()).has(batchId); pass++) {
      await unlessWalletHeld(() => runner.runOnce());
    }
    expect((await store.walletMissingSince()).has(batchId)).toBe(true);
    expect(await store.getBatch(batchId)).toMatchObject({ resolution: FEE_ASSUMED_RESOLUTION });

    const daemonUrl = new URL(env.devnet.daemonUrl);
    const daemon = new DaemonClient({
      host: daemonUrl.hostname,
      port: Number(daemonUrl.port),
      timeoutMs: 10_000,
      retries: 0,
    });
    try {
      await settleWalletMissingBatch(
        keyPrefix,
        { redis: env.redis, daemon },
        { refundAfterMs: 0 },
        { txHash, mode: 'paid', note: 'seen on chain' },
      );
    } finally {
      daemon.close();
    }

    expect(await store.getBatch(batchId)).toMatchObject({
      state: 'sent',
      txHash,
      actualFeeAtomic: 80_000n,
      resolution: FEE_READ_LATER_RESOLUTION,
    });
    expect((await store.listUnconfirmedSent()).map((b) => b.id)).not.toContain(batchId);
    await expectSurplusOf100000Refunded(balances, funded);
    const totals = await balances.getTotals();
    expect(totals.networkFees - totalsBefore.networkFees).toBe(80_000n);
    expect(totals.poolNetworkFees).toBe(totalsBefore.poolNetworkFees);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);

    // Once: the wallet finding it again later settles nothing more.
    env.devnet.control.releaseWalletScan();
    await unlessWalletHeld(() => runner.runOnce());
    expect(await balances.getTotals()).toEqual(totals);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
  });
});
