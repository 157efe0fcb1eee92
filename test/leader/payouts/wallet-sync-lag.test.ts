import { describe, expect, it } from 'vitest';
import type { PayoutRunnerModules, PayoutRunnerOptions } from '../../../src/leader/payouts/payout-runner.js';
import type { PayoutRunSummary } from '../../../src/pool/payouts/payout-reports.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { threeMinersPayFeeRunner } from './payout-runner-for.js';
import {
  devnetTransactionsWithBatch,
  expectPaidExactlyOnce,
  fundMiners,
  fundThreeMiners,
  minerAddress,
  unlessWalletHeld,
} from './payout-test-kit.js';

const COIN = 10_000_000n;

/**
 * The pool against a walletd that trails its daemon (the devnet's wallet scan held or lagging) or
 * whose daemon trails its peers (walletd's 41 "Daemon is not synchronized"): what was sent is never
 * sent again nor refunded because the wallet does not see it confirmed yet, nothing is paid beyond
 * what the wallet can spend at its scanned height, and everything is paid once it catches up.
 */
describe('payouts while the wallet trails its daemon', () => {
  const env = usePayoutDevnet();
  /** Pays 1-coin balances through the devnet wallet, the miners sharing the 80000 fee. */
  const runnerFor = (
    keyPrefix: string,
    overrides: Partial<PayoutRunnerOptions> = {},
    modules: Pick<PayoutRunnerModules, 'daemon'> = {},
  ) =>
    threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: silentLogger, ...modules },
      80_000n,
      overrides,
    );

  /** Three funded miners, and a runner that reverts a CANCELLED batch at once (only the wallet's view decides). */
  const revertingAtOnce = async (label: string) => {
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const runner = runnerFor(funded.keyPrefix, { unresolvedRollbackAfterMs: 0 });
    const store = new PayoutStore({ keyPrefix: funded.keyPrefix }, { redis: env.redis });
    return { ...funded, runner, store };
  };

  it('a sent batch mined in blocks the wallet has not scanned stays sent, is never resent or refunded, and confirms once the wallet catches up', async () => {
    const label = 'lag-sent';
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const { keyPrefix, credits, miners } = funded;
    const runner = runnerFor(keyPrefix);
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const first = await unlessWalletHeld(() => runner.runOnce());
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const batchId = first.batches[0]!.batchId;

    env.devnet.control.holdWalletScan();
    try {
      // Mined, then buried 11 deep on the daemon; to the wallet still unconfirmed.
      env.devnet.control.mineBlocks(12);
      // More credit for the same miners: a pass that ignored the lag would pay them again now.
      await fundMiners(env.redis, keyPrefix, credits);
      for (let pass = 0; pass < 3; pass++) {
        const summary = await runner.runOnce();
        expect(summary.skipped).toBe('wallet-unhealthy');
        expect(summary.detail).toMatch(/behind its daemon/);
        expect(summary.batches).toEqual([]);
      }
      expect(await store.getBatch(batchId)).toMatchObject({ state: 'sent' });
      expect((await store.listUnconfirmedSent()).map((b) => b.id)).toContain(batchId);
      expect(devnetTransactionsWithBatch(env.devnet, batchId)).toHaveLength(1);
      expect((await store.countBatches()).failed).toBe(0);
    } finally {
      env.devnet.control.releaseWalletScan();
    }

    const caughtUp = await unlessWalletHeld(() => runner.runOnce());
    expect(caughtUp.batches.map((b) => b.state)).toEqual(['sent']);
    expect((await store.listUnconfirmedSent()).map((b) => b.id)).not.toContain(batchId);
    env.devnet.control.mineBlocks(11);
    await unlessWalletHeld(() => runner.runOnce());
    expect(await store.listUnconfirmedSent()).toEqual([]);
    const doubled = credits.map(([address, amount]) => [address, 2n * amount] as const);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, doubled);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);
  });

  it('a sent batch the daemon drops while the wallet trails stays sent (the wallet still holds it unconfirmed), and is reverted and paid anew once the wallet reports it CANCELLED', async () => {
    const { keyPrefix, credits, miners, runner, store } = await revertingAtOnce('lag-dropped');
    const first = await unlessWalletHeld(() => runner.runOnce());
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const { batchId, txHash } = first.batches[0]!;

    // walletd takes in pool changes only when its sync is done: held, it still shows the send pending.
    env.devnet.control.holdWalletScan();
    try {
      expect(env.devnet.control.dropFromMempool(txHash!)).toBe(true);
      const held = await runner.runOnce();
      expect(held.recovered).toEqual([]);
      expect(held.batches).toEqual([]);
      expect(await store.getBatch(batchId)).toMatchObject({ state: 'sent' });
    } finally {
      env.devnet.control.releaseWalletScan();
    }

    const caughtUp = await unlessWalletHeld(() => runner.runOnce());
    expect(caughtUp.recovered.map((b) => b.state)).toEqual(['failed']);
    expect(caughtUp.batches.map((b) => b.state)).toEqual(['sent']);
    env.devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);
  });

  it('a batch sent while the wallet trails and dropped before its pool sync saw it stays sent for good (walletd never cancels it): never resent nor refunded; confirmed if mined after all', async () => {
    const { keyPrefix, credits, miners, runner, store } = await revertingAtOnce('lag-never-synced');
    let sent: { batchId: string; txHash: string | null };
    let bytes: Uint8Array;
    // One block behind (the pool tolerates 2): the wallet sends, but takes in no pool changes.
    env.devnet.control.setWalletSyncLag(1);
    try {
      env.devnet.control.mineBlocks(1);
      const first = await unlessWalletHeld(() => runner.runOnce());
      expect(first.batches.map((b) => b.state)).toEqual(['sent']);
      sent = first.batches[0]!;
      bytes = env.devnet.chain.findTransaction(sent.txHash!)!.tx.bytes;
      expect(env.devnet.control.dropFromMempool(sent.txHash!)).toBe(true);
    } finally {
      env.devnet.control.setWalletSyncLag(0);
    }
    for (let pass = 0; pass < 2; pass++) {
      const summary = await unlessWalletHeld(() => runner.runOnce());
      expect(summary.recovered).toEqual([]);
      expect(summary.batches).toEqual([]);
    }
    expect(await store.getBatch(sent.batchId)).toMatchObject({ state: 'sent' });
    expect(devnetTransactionsWithBatch(env.devnet, sent.batchId)).toHaveLength(0);

    expect(env.devnet.chain.addTransaction(bytes).ok).toBe(true);
    env.devnet.control.mineBlocks(11);
    await unlessWalletHeld(() => runner.runOnce());
    expect(await store.listUnconfirmedSent()).toEqual([]);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);
  });

  it("a sent batch is watched until it is 10 blocks deep in the wallet's chain, not 10 below the block count a syncing daemon has heard of", async () => {
    const label = 'lag-depth';
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const { keyPrefix, credits } = funded;
    const runner = runnerFor(keyPrefix);
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const first = await unlessWalletHeld(() => runner.runOnce());
    const batchId = first.batches[0]!.batchId;
    const watched = async () => (await store.listUnconfirmedSent()).map((b) => b.id);

    // Mined in the next block: 1 deep. The daemon hears of 20 more; walletd's confirmations
    // count from that (21), its chain does not.
    env.devnet.control.mineBlocks(1);
    env.devnet.control.setDaemonKnownBlocksAhead(20);
    try {
      await runner.runOnce();
      expect(await watched()).toContain(batchId);
    } finally {
      env.devnet.control.setDaemonKnownBlocksAhead(0);
    }
    env.devnet.control.mineBlocks(10);
    await unlessWalletHeld(() => runner.runOnce());
    expect(await watched()).not.toContain(batchId);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
  });

  it('a wallet trailing by the tolerated 2 blocks pays from what it can spend at its scanned height, and the rest once it sees more', async () => {
    const label = 'lag-unlocked';
    const keyPrefix = uniquePrefix(label);
    env.devnet.control.setWalletSyncLag(2);
    try {
      const wallet = await env.wallet.getBalance();
      // Lock most of the wallet's money as change: spendable to the daemon 10 blocks after its
      // block, to a wallet 2 blocks behind 2 blocks later.
      const available = BigInt(wallet.availableBalance);
      const lockedAway = available - 50n * COIN;
      await env.wallet.sendTransaction({
        transfers: [{ address: minerAddress(`${label}-sink`), amountAtomic: lockedAway / 2n }],
        changeAddress: env.devnet.walletAddress,
        feeAtomic: 80_000n,
        anonymity: 2,
      });
      env.devnet.control.mineBlocks(10);
      const spendable = BigInt((await env.wallet.getBalance()).availableBalance);
      // Three miners each owed half of what the wallet can spend now: one batch fits.
      const miners = [1, 2, 3].map((n) => minerAddress(`${label}-${n}`));
      const owed = spendable / 2n;
      const credits = miners.map((address) => [address, owed] as const);
      await fundMiners(env.redis, keyPrefix, credits);
      const runner = runnerFor(keyPrefix, { maxTransfersPerTransaction: 1 });

      const first = await unlessWalletHeld(() => runner.runOnce());
      const sent = first.batches.filter((b) => b.state === 'sent');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.amountAtomic + 80_000n).toBeLessThanOrEqual(spendable);
      expect(first.skippedMiners).toHaveLength(2);

      env.devnet.control.mineBlocks(2);
      for (let pass = 0; pass < 5; pass++) {
        const summary = await unlessWalletHeld(() => runner.runOnce());
        if (summary.skippedMiners.length === 0) break;
        env.devnet.control.mineBlocks(11);
      }
      env.devnet.control.setWalletSyncLag(0);
      env.devnet.control.mineBlocks(11);
      await unlessWalletHeld(() => runner.runOnce());
      await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
      await expectLedgerConsistent(env.redis, keyPrefix, miners);
    } finally {
      env.devnet.control.setWalletSyncLag(0);
    }
  });

  it('41 "Daemon is not synchronized": no batch while the pool\'s daemon shows it behind its peers; without that view the pass stops at the first refused batch; miners held with the reason, no backoff, all paid once synced', async () => {
    const label = 'lag-41';
    const funded = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const { keyPrefix, credits, miners } = funded;
    const daemonUrl = new URL(env.devnet.daemonUrl);
    const daemon = new DaemonClient({
      host: daemonUrl.hostname,
      port: Number(daemonUrl.port),
      timeoutMs: 1_500,
      retries: 0,
    });
    // One miner per batch: three batches a pass. `watching` also reads the pool's daemon.
    const blind = runnerFor(keyPrefix, { maxTransfersPerTransaction: 1 });
    const watching = runnerFor(keyPrefix, { maxTransfersPerTransaction: 1 }, { daemon });
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const watch = new PayoutWatchStore({ keyPrefix }, { redis: env.redis });
    const expectAllHeld = (summary: PayoutRunSummary) => {
      expect(summary.skipped).toBe('wallet-unhealthy');
      expect(summary.detail).toMatch(/not synchronized/);
      expect(summary.skippedMiners.map((m) => m.address).sort()).toEqual([...miners].sort());
      for (const held of summary.skippedMiners) expect(held.reason).toMatch(/not synchronized/);
    };

    // walletd's daemon 2 blocks behind its peers: the wallet lags no more than the pool tolerates
    // (2), but walletd refuses every send.
    env.devnet.control.setDaemonKnownBlocksAhead(2);
    try {
      const seen = await watching.runOnce();
      expectAllHeld(seen);
      expect(seen.batches).toEqual([]);
      expect((await store.countBatches()).failed).toBe(0);

      for (let pass = 1; pass <= 2; pass++) {
        const refused = await blind.runOnce();
        expectAllHeld(refused);
        expect(refused.batches.map((b) => b.state)).toEqual(['failed']);
        expect((await store.countBatches()).failed).toBe(pass);
      }
      expect(await watch.getBackoff()).toBeNull();
      expect(await store.listOpenBatches()).toEqual([]);
    } finally {
      env.devnet.control.setDaemonKnownBlocksAhead(0);
      daemon.close();
    }

    const synced = await unlessWalletHeld(() => blind.runOnce());
    expect(synced.batches.map((b) => b.state)).toEqual(['sent', 'sent', 'sent']);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(env.redis, keyPrefix, miners);
  });
});
