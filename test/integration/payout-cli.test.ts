import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliCommand } from '../../src/cli/command.js';
import { payoutCommand } from '../../src/cli/commands/payout.js';
import { payoutResolveCommand } from '../../src/cli/commands/payout-resolve.js';
import { reportCommand } from '../../src/cli/commands/report.js';
import { RedisEventRelay } from '../../src/cluster/redis-event-relay.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { createPoolEventBus, type PoolEventMap, type PoolEventName } from '../../src/pool/events.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { RedisMinerThresholds } from '../../src/store/payments/miner-thresholds.js';
import { createPaymentKeys } from '../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../src/store/payments/payout-watch-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fundMiners, minerAddress } from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

async function run(command: CliCommand, args: string[]): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await command.run(args, {
    stdout,
    stderr: new PassThrough(),
    stdin: Readable.from([]),
    env: {},
  });
  return { code, out: Buffer.concat(chunks).toString() };
}

describe('fuego-pool payout / report', () => {
  let server: TestRedis;
  let devnet: Devnet;
  let redis: Redis;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([startTestRedis({ appendOnly: true }), startTestDevnet()]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
  });

  afterAll(async () => {
    redis?.disconnect();
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  /**
   * `payments` as given; the wallet upkeep off unless asked for: half of this devnet wallet's
   * outputs soon become ready to join, and fusions would hold these payouts for 11 blocks.
   */
  function writeConfig(keyPrefix: string, payments: { payouts?: object } & Record<string, unknown>): string {
    const dir = tempDir('fuego-payout-cli-');
    const path = join(dir, 'config.json');
    const wallet = new URL(devnet.walletUrl);
    const daemon = new URL(devnet.daemonUrl);
    writeFileSync(
      path,
      JSON.stringify({
        log: { level: 'silent' },
        redis: { url: server.url, keyPrefix },
        wallet: { host: '127.0.0.1', port: Number(wallet.port), timeoutMs: 2000 },
        daemon: { host: '127.0.0.1', port: Number(daemon.port), timeoutMs: 2000, retries: 0 },
        payments: { ...payments, payouts: { walletUpkeep: { enabled: false }, ...payments.payouts } },
      }),
    );
    return path;
  }

  it('dry-runs, pays, honours the interval, and reports solvency', async () => {
    const keyPrefix = uniquePrefix('cli');
    const miner = minerAddress('cli-1');
    await fundMiners(redis, keyPrefix, [[miner, 30_000_000n]]);
    const config = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2', intervalSec: 3600 } });
    const dry = await run(payoutCommand, ['--config', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('planned');
    const paid = await run(payoutCommand, ['--config', config]);
    expect(paid.code).toBe(0);
    expect(paid.out).toMatch(/sent\s+1\s+3\.0000000/);
    const notDue = await run(payoutCommand, ['--config', config]);
    expect(notDue.out).toContain('not due');
    const report = await run(reportCommand, ['--config', config]);
    expect(report.code).toBe(0);
    expect(report.out).toContain('(solvent)');
    expect(report.out).toContain(': ok');
  });

  it('--dry-run changes nothing: every key of the pool and the wallet stay as they were', async () => {
    const keyPrefix = uniquePrefix('cli-dry');
    await fundMiners(redis, keyPrefix, [[minerAddress('cli-dry-1'), 30_000_000n]]);
    const config = writeConfig(keyPrefix, {
      payouts: { minPayoutCoins: '2', walletUpkeep: { enabled: true } },
    });
    const snapshot = async (): Promise<Record<string, string>> => {
      const keys = (await redis.keys(`*${keyPrefix}*`)).sort();
      const dumps = await Promise.all(keys.map((key) => redis.dumpBuffer(key)));
      return Object.fromEntries(keys.map((key, i) => [key, dumps[i]?.toString('hex') ?? 'none']));
    };
    const before = await snapshot();
    const sentBefore = devnet.wallet.builtTransactionHashes().length;
    const dry = await run(payoutCommand, ['--config', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('planned');
    expect(await snapshot()).toEqual(before);
    expect(devnet.wallet.builtTransactionHashes().length).toBe(sentBefore);
  });

  it("honours a miner's own threshold (as the signed API call stores it): no payout below it, paid at it", async () => {
    const keyPrefix = uniquePrefix('cli-threshold');
    const [patient, plain] = [minerAddress('cli-threshold-1'), minerAddress('cli-threshold-2')];
    await fundMiners(redis, keyPrefix, [
      [patient, 30_000_000n],
      [plain, 30_000_000n],
    ]);
    const thresholds = new RedisMinerThresholds({ keyPrefix, maxThresholdAtomic: 10n ** 10n }, { redis });
    expect(await thresholds.write(patient, 50_000_000n, Math.floor(Date.now() / 1000))).toBe(true);
    const config = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2' } });
    const first = await run(payoutCommand, ['--config', config, '--now']);
    expect(first.code).toBe(0);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(patient)).paid).toBe(0n);
    expect((await balances.getBalance(plain)).paid).toBe(30_000_000n);
    await fundMiners(redis, keyPrefix, [[patient, 20_000_000n]]);
    devnet.control.mineBlocks(11);
    const second = await run(payoutCommand, ['--config', config, '--now']);
    expect(second.code).toBe(0);
    expect((await balances.getBalance(patient)).paid).toBe(50_000_000n);
  });

  it('report names an unknown tagged payment and exits 1 until `payout resolve` settles it', async () => {
    const keyPrefix = uniquePrefix('cli-unknown');
    const miner = minerAddress('cli-unknown-1');
    await fundMiners(redis, keyPrefix, [[miner, 30_000_000n]]);
    const txHash = 'ef'.repeat(32);
    await new PayoutWatchStore({ keyPrefix }, { redis }).recordUnknownPayments([
      {
        txHash,
        batchId: '12'.repeat(16),
        blockIndex: 42,
        paymentId: '',
        feeAtomic: 80_000n,
        transfers: [{ address: miner, amountAtomic: 30_000_000n }],
        unnamedAtomic: 0n,
        firstSeenMs: Date.now(),
        status: 'unresolved',
        resolvedAtMs: null,
        resolvedNote: null,
      },
    ]);
    const config = writeConfig(keyPrefix, {});
    const before = await run(reportCommand, ['--config', config]);
    expect(before.code).toBe(1);
    expect(before.out).toContain(`${txHash}`);
    expect(before.out).toContain('UNRESOLVED');
    expect(before.out).toContain('the AOF is fsynced before every reply');
    await expect(run(payoutResolveCommand, [txHash, '--config', config])).rejects.toThrow(
      /--paid or --dismiss/,
    );
    await expect(run(payoutResolveCommand, ['cafe', '--paid', '--config', config])).rejects.toThrow(/TXHASH/);
    const resolved = await run(payoutResolveCommand, [
      txHash,
      '--paid',
      '--config',
      config,
      '--note',
      'on chain',
    ]);
    expect(resolved.code).toBe(0);
    expect(resolved.out).toContain('recorded as paid: 1 recipients debited 3.0000000 XFG');
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.getBalance(miner)).toMatchObject({ balance: 0n, paid: 30_000_000n });
    const after = await run(reportCommand, ['--config', config]);
    expect(after.out).toContain('recorded-as-paid (on chain)');
    expect(after.code).toBe(0);
    await expect(run(payoutResolveCommand, [txHash, '--dismiss', '--config', config])).rejects.toMatchObject({
      code: 'BATCH_STATE',
    });
    await expect(
      run(payoutResolveCommand, [txHash, '--all', '--dismiss', '--config', config]),
    ).rejects.toThrow(/one TXHASH or --all/);
    expect((await run(payoutResolveCommand, ['--all', '--dismiss', '--config', config])).out).toContain(
      'no unresolved unknown payment',
    );
  });

  it('`payout resolve --all --paid` settles every payment it can, and names those that need --recipients (exit 1)', async () => {
    const keyPrefix = uniquePrefix('cli-all-unnamed');
    const miners = [minerAddress('cli-all-1'), minerAddress('cli-all-2')] as const;
    await fundMiners(redis, keyPrefix, [
      [miners[0], 30_000_000n],
      [miners[1], 20_000_000n],
    ]);
    const unknown = (
      txHash: string,
      firstSeenMs: number,
      transfers: Array<{ address: string; amountAtomic: bigint }>,
    ) => ({
      txHash,
      batchId: txHash.slice(0, 32),
      blockIndex: 42,
      paymentId: '',
      feeAtomic: 80_000n,
      transfers,
      unnamedAtomic: transfers.length === 0 ? 40_000_000n : 0n,
      firstSeenMs,
      status: 'unresolved' as const,
      resolvedAtMs: null,
      resolvedNote: null,
    });
    // The oldest one names no recipients (walletd rebuilt its record): --all reaches it first.
    const nameless = 'a1'.repeat(32);
    const watch = new PayoutWatchStore({ keyPrefix }, { redis });
    await watch.recordUnknownPayments([
      unknown(nameless, 1_000, []),
      unknown('b2'.repeat(32), 2_000, [{ address: miners[0], amountAtomic: 30_000_000n }]),
      unknown('c3'.repeat(32), 3_000, [{ address: miners[1], amountAtomic: 20_000_000n }]),
    ]);
    const config = writeConfig(keyPrefix, {});
    const all = await run(payoutResolveCommand, ['--all', '--paid', '--config', config]);
    expect(all.code).toBe(1);
    expect(all.out).toContain(
      `recorded as paid: 1 recipients debited 3.0000000 XFG in all (tx ${'b2'.repeat(32)})`,
    );
    expect(all.out).toContain(
      `recorded as paid: 1 recipients debited 2.0000000 XFG in all (tx ${'c3'.repeat(32)})`,
    );
    expect(all.out).toMatch(new RegExp(`not resolved: tx ${nameless}[^\\n]*--recipients FILE`));
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(miners[0])).paid).toBe(30_000_000n);
    expect((await balances.getBalance(miners[1])).paid).toBe(20_000_000n);
    const statuses = (await watch.listUnknownPayments()).map((p) => [p.txHash, p.status]);
    expect(statuses).toContainEqual([nameless, 'unresolved']);
    expect(statuses.filter(([, status]) => status === 'recorded-as-paid')).toHaveLength(2);
  });

  /** One miner paid 3 coins by `payout --now`; returns its batch's transaction. */
  async function paySentBatch(keyPrefix: string, miner: string, config: string) {
    await fundMiners(redis, keyPrefix, [[miner, 30_000_000n]]);
    expect((await run(payoutCommand, ['--config', config, '--now'])).code).toBe(0);
    const [batch] = await new PayoutStore({ keyPrefix }, { redis }).listRecentBatches(1);
    expect(batch).toMatchObject({ state: 'sent' });
    return { batchId: batch!.id, txHash: batch!.txHash! };
  }

  /** What a pool process on `keyPrefix` hears of `name` (through the relay). */
  async function listenFor<K extends PoolEventName>(keyPrefix: string, name: K) {
    const heard: PoolEventMap[K][] = [];
    const relay = new RedisEventRelay(
      { keyPrefix, origin: 'pool-node' },
      { redis, local: createPoolEventBus(() => undefined), logger: silentLogger },
    );
    await relay.start();
    relay.bus.subscribe(name, (p) => heard.push(p));
    return { heard, stop: () => relay.stop() };
  }

  it("a standalone pass tells a payout not mined 6 hours after its send: a NOT MINED line, and payout-unmined through the relay for the leader's notifier, once", async () => {
    const keyPrefix = uniquePrefix('cli-unmined');
    const miner = minerAddress('cli-unmined-1');
    const config = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2' } });
    const { batchId, txHash } = await paySentBatch(keyPrefix, miner, config);
    // Sent 7 hours ago as far as the pool's record goes (the command runs on the real clock).
    const sentMs = Date.now() - 7 * 3_600_000;
    await redis.hset(createPaymentKeys(keyPrefix).batch(batchId), 'resolvedAtMs', String(sentMs));
    const listener = await listenFor(keyPrefix, 'payout-unmined');
    try {
      const first = await run(payoutCommand, ['--config', config, '--now']);
      expect(first.out).toContain(
        `NOT MINED after 7 h: tx ${txHash} (batch ${batchId}), 3.0000000 XFG to 1 miners: fuegod still has it in its pool: it may be mined yet (check fuegod's peers if it stays)`,
      );
      await expect.poll(() => listener.heard.length).toBe(1);
      expect(listener.heard[0]).toMatchObject({
        batchId,
        transactionHash: txHash,
        recipients: 1,
        sentAtMs: sentMs,
        sighting: 'in-pool',
        blockHeight: null,
      });
      const second = await run(payoutCommand, ['--config', config, '--now']);
      expect(second.out).not.toContain('NOT MINED');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(listener.heard).toHaveLength(1);
    } finally {
      listener.stop();
    }
  });

  it('a sent batch the wallet has no record of: reported until `payout resolve --paid` records it, on fuegod seeing it 10 deep', async () => {
    const keyPrefix = uniquePrefix('cli-missing-paid');
    const miner = minerAddress('cli-missing-paid-1');
    const config = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2' } });
    const { batchId, txHash } = await paySentBatch(keyPrefix, miner, config);
    // walletd reset, its rescan stalled before its pool sync could find the transaction again.
    devnet.control.holdWalletScan();
    devnet.control.forgetWalletTransaction(txHash);
    await run(payoutCommand, ['--config', config, '--now']);
    const before = await run(reportCommand, ['--config', config]);
    expect(before.code).toBe(1);
    expect(before.out).toMatch(new RegExp(`${txHash}\\s+batch ${batchId}.*wallet has no record`));

    const resolve = (mode: string) => run(payoutResolveCommand, [txHash, mode, '--config', config]);
    await expect(resolve('--dismiss')).rejects.toThrow(/--paid or --refund/);
    // In fuegod's pool: neither paid nor refundable yet.
    await expect(resolve('--refund')).rejects.toThrow(/in fuegod's pool/);
    await expect(resolve('--paid')).rejects.toThrow(/in no block/);
    devnet.control.mineBlocks(1);
    await expect(resolve('--paid')).rejects.toThrow(/1 blocks deep/);
    await expect(resolve('--refund')).rejects.toThrow(/with --paid/);
    devnet.control.mineBlocks(9);
    const listener = await listenFor(keyPrefix, 'payout-unknown-to-wallet-resolved');
    let paid: Awaited<ReturnType<typeof resolve>>;
    try {
      paid = await resolve('--paid');
      // The leader's notifier hears it through the relay, once.
      await expect.poll(() => listener.heard.length).toBe(1);
    } finally {
      listener.stop();
    }
    expect(paid.out).toContain(`recorded as paid in block ${devnet.chain.height - 10}: batch ${batchId}`);
    expect(listener.heard).toEqual([
      {
        batchId,
        transactionHash: txHash,
        recipients: 1,
        amountAtomic: expect.any(BigInt),
        resolution: 'paid',
        blockHeight: devnet.chain.height - 10,
        note: 'the operator found it on chain',
        timestampMs: expect.any(Number),
      },
    ]);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.getBalance(miner)).toMatchObject({ balance: 0n, paid: 30_000_000n });
    const store = new PayoutStore({ keyPrefix }, { redis });
    expect((await store.listUnconfirmedSent()).map((b) => b.id)).not.toContain(batchId);
    const after = await run(reportCommand, ['--config', config]);
    expect(after.code).toBe(0);
    expect(after.out).not.toContain(batchId);
    // Once only: it is no longer a batch the wallet has no record of.
    await expect(resolve('--paid')).rejects.toMatchObject({ code: 'BATCH_NOT_FOUND' });
    devnet.control.releaseWalletScan();
  });

  it('`payout resolve --paid` of a batch the wallet has no record of whose fee was assumed says the fee it settled', async () => {
    const keyPrefix = uniquePrefix('cli-missing-fee');
    const miner = minerAddress('cli-missing-fee-1');
    const config = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2' } });
    // The wallet cannot tell the fee right after the send: recorded sent with the fee assumed.
    devnet.control.failReadsOfNextSend(1);
    const { batchId, txHash } = await paySentBatch(keyPrefix, miner, config);
    devnet.control.holdWalletScan();
    devnet.control.forgetWalletTransaction(txHash);
    const store = new PayoutStore({ keyPrefix }, { redis });
    for (let pass = 0; pass < 3 && !(await store.walletMissingSince()).has(batchId); pass++) {
      await run(payoutCommand, ['--config', config, '--now']);
    }
    expect(await store.getBatch(batchId)).toMatchObject({ resolution: 'wallet-reply (fee assumed)' });
    devnet.control.mineBlocks(10);
    const paid = await run(payoutResolveCommand, [txHash, '--paid', '--config', config]);
    expect(paid.out).toContain(`batch ${batchId}`);
    expect(paid.out).toContain('its assumed fee settled at the 0.0080000 XFG it paid');
    expect(await store.getBatch(batchId)).toMatchObject({
      actualFeeAtomic: 80_000n,
      resolution: 'wallet-reply (fee read later)',
    });
    devnet.control.releaseWalletScan();
  });

  it('a sent batch the wallet has no record of and fuegod has nowhere: `payout resolve --refund` credits its miner back once it can no longer be mined', async () => {
    const keyPrefix = uniquePrefix('cli-missing-refund');
    const miner = minerAddress('cli-missing-refund-1');
    const early = writeConfig(keyPrefix, { payouts: { minPayoutCoins: '2' } });
    const { batchId, txHash } = await paySentBatch(keyPrefix, miner, early);
    expect(devnet.control.dropFromMempool(txHash)).toBe(true);
    devnet.control.forgetWalletTransaction(txHash);
    await run(payoutCommand, ['--config', early, '--now']);
    const store = new PayoutStore({ keyPrefix }, { redis });
    expect(await store.getBatch(batchId)).toMatchObject({ state: 'sent' });
    await expect(run(payoutResolveCommand, [txHash, '--refund', '--config', early])).rejects.toThrow(
      /refund it after/,
    );
    const late = writeConfig(keyPrefix, {
      payouts: { minPayoutCoins: '2', unresolvedRollbackAfterSec: 0, allowEarlyUnresolvedRollback: true },
    });
    const listener = await listenFor(keyPrefix, 'payout-unknown-to-wallet-resolved');
    let refunded: Awaited<ReturnType<typeof run>>;
    try {
      refunded = await run(payoutResolveCommand, [txHash, '--refund', '--config', late, '--note', 'gone']);
      await expect.poll(() => listener.heard.length).toBe(1);
    } finally {
      listener.stop();
    }
    expect(refunded.out).toContain(`refunded: batch ${batchId}`);
    expect(listener.heard).toEqual([
      expect.objectContaining({ batchId, resolution: 'refunded', blockHeight: null, note: 'gone' }),
    ]);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect(await balances.getBalance(miner)).toMatchObject({ balance: 30_000_000n, paid: 0n });
    expect(await store.getBatch(batchId)).toMatchObject({ state: 'failed' });
    const report = await run(reportCommand, ['--config', late]);
    expect(report.out).toMatch(new RegExp(`${batchId}.*refunded by the operator: gone`));
    await expect(run(payoutResolveCommand, [txHash, '--refund', '--config', late])).rejects.toMatchObject({
      code: 'BATCH_NOT_FOUND',
    });
  });

  it('a standalone pass consolidates the wallet first, shows the miners held for it, and pays once the fusions are spendable', async () => {
    const keyPrefix = uniquePrefix('cli-upkeep');
    const miner = minerAddress('cli-upkeep-1');
    await fundMiners(redis, keyPrefix, [[miner, 30_000_000n]]);
    const config = writeConfig(keyPrefix, { payouts: { walletUpkeep: { readyShare: 0.01 } } });
    const held = await run(payoutCommand, ['--config', config, '--now']);
    expect(held.code).toBe(1);
    expect(held.out).toContain('skipped: wallet-upkeep');
    expect(held.out).toContain(`not paid: ${miner} - wallet consolidating its outputs (fusion tx`);
    devnet.control.mineBlocks(11);
    const paid = await run(payoutCommand, ['--config', config, '--now']);
    expect(paid.code).toBe(0);
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(miner)).paid).toBe(30_000_000n);
  });

  it('fails at start on a bad payments section, naming the key', async () => {
    const config = writeConfig(uniquePrefix('cli-bad'), { poolFeePercent: 150 });
    await expect(run(payoutCommand, ['--config', config])).rejects.toThrow(/payments\.poolFeePercent/);
  });
});
