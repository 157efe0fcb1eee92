import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readMoneyReport, readPayoutWatchSnapshot } from '../../src/app/money-report.js';
import { resolveUnknownPayment } from '../../src/app/unknown-payment-resolution.js';
import { formatMoneyReport } from '../../src/cli/commands/report.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import type { FaultPoints } from '../../src/fault-points.js';
import type { PayoutStep } from '../../src/leader/payouts/batch-sender.js';
import type { PayoutRunnerOptions } from '../../src/leader/payouts/payout-runner.js';
import type { Logger } from '../../src/log/logger.js';
import { createLogger } from '../../src/log/logger.js';
import type { PayoutWallet } from '../../src/pool/payouts/payout-wallet.js';
import type { JsonHttpClient } from '../../src/rpc/json-http.js';
import { callJsonRpc } from '../../src/rpc/json-rpc.js';
import type { WalletClient } from '../../src/rpc/wallet-client.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { PayoutWatchStore } from '../../src/store/payments/payout-watch-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { restorePool, snapshotPool } from '../helpers/lost-writes.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { payoutRunnerFor } from '../leader/payouts/payout-runner-for.js';
import {
  devnetReceived,
  expectPaidExactlyOnce,
  fundMiners,
  minerAddress,
  walletClientFor,
} from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

const COIN = 10_000_000n;
const HOUR_MS = 3_600_000;

/** Transactions on the devnet (chain and mempool) paying `address`. */
function paymentsTo(devnet: Devnet, address: string): number {
  let count = 0;
  const all = [...devnet.chain.mainChain().flatMap((block) => block.transactions), ...devnet.chain.mempool()];
  for (const tx of all) {
    for (const output of tx.tx.outputs) {
      if (output.kind !== 'key') continue;
      if (devnet.chain.outputOwners.ownerOf(Buffer.from(output.key).toString('hex')) === address) {
        count += 1;
        break;
      }
    }
  }
  return count;
}

/**
 * What the real walletd (Fuego's WalletService::sendTransaction) answers when its daemon is more
 * than 2 blocks behind the network: that check runs first, before any transfer is built, so
 * nothing can have been sent. The devnet wallet never answers it. Made into the client's RpcError
 * by the client's own JSON-RPC parsing.
 */
async function daemonNotSyncedError(): Promise<unknown> {
  const body =
    '{"error":{"code":-32000,"data":{"application_code":41},"message":"Daemon is not synchronized"},"id":1,"jsonrpc":"2.0"}';
  const http = { send: async () => ({ status: 200, body }) } as unknown as JsonHttpClient;
  return callJsonRpc(http, 1, 'sendTransaction', {}).then(
    () => new Error('expected a refusal'),
    (error: unknown) => error,
  );
}

/** `wallet`, except that its next `refusals.count` sends are refused as walletd does when not synced. */
function notSyncedWallet(wallet: WalletClient, refusals: { count: number }): PayoutWallet {
  return {
    getStatus: () => wallet.getStatus(),
    getBalance: (address?: string) => wallet.getBalance(address),
    getAddresses: () => wallet.getAddresses(),
    getTransactions: (range, filter) => wallet.getTransactions(range, filter),
    getTransaction: (hash) => wallet.getTransaction(hash),
    getUnconfirmedTransactionHashes: () => wallet.getUnconfirmedTransactionHashes(),
    sendTransaction: async (request) => {
      if (refusals.count === 0) return wallet.sendTransaction(request);
      refusals.count -= 1;
      throw await daemonNotSyncedError();
    },
  };
}

function capturingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    logger: createLogger({ level: 'info' }, stream),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('payouts when Redis loses writes or the wallet misbehaves', () => {
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

  function runner(
    keyPrefix: string,
    options: {
      overrides?: Partial<PayoutRunnerOptions>;
      clockOffsetMs?: number;
      afterStep?: FaultPoints<PayoutStep>['reached'];
      logger?: Logger;
    } = {},
  ) {
    const offset = options.clockOffsetMs ?? 0;
    return payoutRunnerFor(
      redis,
      keyPrefix,
      {
        wallet,
        logger: options.logger ?? silentLogger,
        clock: () => Date.now() + offset,
        ...(options.afterStep ? { faults: { reached: options.afterStep } } : {}),
      },
      { minPayoutAtomic: COIN, ...options.overrides },
    );
  }

  it('lost writes after the wallet paid: no second payment, the transaction is reported, then resolved as paid', async () => {
    const keyPrefix = uniquePrefix('lost');
    const miners = [minerAddress('lost-1'), minerAddress('lost-2')];
    const credits = [
      [miners[0]!, 2n * COIN],
      [miners[1]!, 3n * COIN],
    ] as const;
    await fundMiners(redis, keyPrefix, credits);
    const before = await snapshotPool(redis, keyPrefix);
    const first = await runner(keyPrefix, {
      afterStep: async (step) => {
        if (step === 'wallet-called') await restorePool(redis, keyPrefix, before);
      },
    }).runOnce();
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const txHash = first.batches[0]!.txHash!;
    devnet.control.mineBlocks(1);
    // Redis is back where it was before the batch: the balances are whole again.
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(miners[0]!)).balance).toBe(2n * COIN);

    for (let pass = 0; pass < 3; pass++) {
      const next = await runner(keyPrefix).runOnce();
      expect(next.batches).toEqual([]);
      expect(next.skippedMiners.map((m) => m.address).sort()).toEqual([...miners].sort());
      expect(next.skippedMiners[0]!.reason).toContain(txHash);
    }
    for (const miner of miners) expect(paymentsTo(devnet, miner)).toBe(1);

    const report = await readMoneyReport(keyPrefix, {
      redis,
      wallet,
      durability: { replicas: 0, timeoutMs: 1_000 },
    });
    const printed = formatMoneyReport(report, Date.now());
    expect(printed.healthy).toBe(false);
    expect(printed.lines.join('\n')).toContain(`${txHash}`);
    expect(printed.lines.join('\n')).toContain('UNRESOLVED');
    expect(await readPayoutWatchSnapshot(keyPrefix, redis)).toMatchObject({
      unknownPayments: 1,
      heldMiners: 2,
    });

    await resolveUnknownPayment(keyPrefix, redis, { txHash, mode: 'paid', note: 'checked on the explorer' });
    const after = await runner(keyPrefix).runOnce();
    expect(after.batches).toEqual([]);
    expect(after.skippedMiners).toEqual([]);
    for (const [address, credited] of credits) {
      expect(devnetReceived(devnet, address)).toBe(credited);
      expect(await balances.getBalance(address)).toMatchObject({ balance: 0n, paid: credited, inPayout: 0n });
    }
    await expectLedgerConsistent(redis, keyPrefix, miners);
    expect(await readPayoutWatchSnapshot(keyPrefix, redis)).toMatchObject({
      unknownPayments: 0,
      heldMiners: 0,
    });
  });

  it('lost writes and a crash right after the wallet call: the next pass finds the tagged transaction itself', async () => {
    const keyPrefix = uniquePrefix('lost-crash');
    const miner = minerAddress('lost-crash-1');
    await fundMiners(redis, keyPrefix, [[miner, 4n * COIN]]);
    const before = await snapshotPool(redis, keyPrefix);
    await expect(
      runner(keyPrefix, {
        afterStep: async (step) => {
          if (step !== 'wallet-called') return;
          await restorePool(redis, keyPrefix, before);
          throw new Error('process killed');
        },
      }).runOnce(),
    ).rejects.toThrow('process killed');
    devnet.control.mineBlocks(1);
    const next = await runner(keyPrefix).runOnce();
    expect(next.unknownPayments.map((p) => p.transfers)).toEqual([
      [{ address: miner, amountAtomic: 4n * COIN }],
    ]);
    expect(next.batches).toEqual([]);
    expect((await runner(keyPrefix).runOnce()).batches).toEqual([]);
    expect(paymentsTo(devnet, miner)).toBe(1);
    // Dismissed, the miner is due again (the operator said the money did not reach it).
    const [unknown] = await new PayoutWatchStore({ keyPrefix }, { redis }).listUnknownPayments();
    await resolveUnknownPayment(keyPrefix, redis, { txHash: unknown!.txHash, mode: 'dismiss', note: 'test' });
    expect((await runner(keyPrefix).runOnce()).batches.map((b) => b.state)).toEqual(['sent']);
  });

  it('a Redis that cannot make a batch durable gets no payout (unless the operator says so), and says why', async () => {
    const volatile = await startTestRedis();
    const volatileRedis = await createRedisClient({ url: volatile.url }, silentLogger);
    try {
      const keyPrefix = uniquePrefix('volatile');
      const miner = minerAddress('volatile-1');
      await fundMiners(volatileRedis, keyPrefix, [[miner, 2n * COIN]]);
      const onVolatile = (overrides: Partial<PayoutRunnerOptions> = {}) =>
        payoutRunnerFor(
          volatileRedis,
          keyPrefix,
          { wallet, logger: silentLogger },
          { minPayoutAtomic: COIN, ...overrides },
        );
      const refused = await onVolatile().runOnce();
      expect(refused.skipped).toBe('redis-not-durable');
      expect(refused.detail).toContain('no persistence at all');
      expect(refused.batches).toEqual([]);
      expect(refused.skippedMiners).toEqual([expect.objectContaining({ address: miner })]);
      expect(paymentsTo(devnet, miner)).toBe(0);
      const allowed = await onVolatile({ requireDurableWrites: false }).runOnce();
      expect(allowed.batches.map((b) => b.state)).toEqual(['sent']);
    } finally {
      volatileRedis.disconnect();
      await volatile.stop();
    }
  });

  it('the daemon refuses the relay (walletd keeps a FAILED record): rolled back at once, paid once later', async () => {
    const keyPrefix = uniquePrefix('relay-refused');
    const miner = minerAddress('relay-refused-1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    devnet.control.failRelay(1, 'refused');
    const first = await runner(keyPrefix).runOnce();
    expect(first.batches.map((b) => b.state)).toEqual(['failed']);
    expect(paymentsTo(devnet, miner)).toBe(0);
    const second = await runner(keyPrefix).runOnce();
    expect(second.batches.map((b) => b.state)).toEqual(['sent']);
    devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, [[miner, 2n * COIN]]);
  });

  it('walletd cannot reach its daemon: the batch waits (never resent) until certainly dead, then is paid once', async () => {
    const keyPrefix = uniquePrefix('relay-unreachable');
    const miner = minerAddress('relay-unreachable-1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    devnet.control.failRelay(1, 'unreachable');
    const first = await runner(keyPrefix).runOnce();
    expect([...first.batches, ...first.stillOpen].map((b) => b.state)).toContain('sending');
    const waiting = await runner(keyPrefix).runOnce();
    expect(waiting.batches).toEqual([]);
    expect(waiting.stillOpen.map((b) => b.state)).toEqual(['sending']);
    const later = await runner(keyPrefix, { clockOffsetMs: 27 * HOUR_MS }).runOnce();
    expect(later.recovered.map((b) => b.state)).toEqual(['failed']);
    expect(later.batches.map((b) => b.state)).toEqual(['sent']);
    devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, [[miner, 2n * COIN]]);
  });

  it('"Daemon is not synchronized" (41) is a refusal before anything is built: rolled back at once and paid on the next pass, not held for a day', async () => {
    const keyPrefix = uniquePrefix('not-synced');
    const miner = minerAddress('not-synced-1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    const refusals = { count: 1 };
    const notSynced = () =>
      payoutRunnerFor(
        redis,
        keyPrefix,
        { wallet: notSyncedWallet(wallet, refusals), logger: silentLogger },
        { minPayoutAtomic: COIN },
      );
    const first = await notSynced().runOnce();
    expect(refusals.count).toBe(0);
    expect(paymentsTo(devnet, miner)).toBe(0);
    // Nothing left the wallet, so nothing may stay open with the miner's money in it.
    expect(first.batches.map((b) => b.state)).toEqual(['failed']);
    expect((await new RedisBalances({ keyPrefix }, { redis }).getBalance(miner)).inPayout).toBe(0n);
    // The daemon caught up: paid now, not after unresolvedRollbackAfterSec (26 h).
    const second = await notSynced().runOnce();
    expect(second.batches.map((b) => b.state)).toEqual(['sent']);
    devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, [[miner, 2n * COIN]]);
  });

  it('a sent transaction the daemon drops unmined (CANCELLED): the miner is credited back once it is certainly dead, then paid once', async () => {
    const keyPrefix = uniquePrefix('cancelled');
    const miner = minerAddress('cancelled-1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    const sent = await runner(keyPrefix).runOnce();
    const txHash = sent.batches[0]!.txHash!;
    expect(devnet.control.dropFromMempool(txHash)).toBe(true);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    // Another node could still mine it for a while: nothing changes yet.
    const soon = await runner(keyPrefix).runOnce();
    expect(soon.recovered).toEqual([]);
    expect((await balances.getBalance(miner)).paid).toBe(2n * COIN);
    const later = await runner(keyPrefix, { clockOffsetMs: 27 * HOUR_MS }).runOnce();
    expect(later.recovered.map((b) => [b.state, b.note.startsWith('reverted')])).toEqual([['failed', true]]);
    expect(later.batches.map((b) => b.state)).toEqual(['sent']);
    devnet.control.mineBlocks(1);
    expect(paymentsTo(devnet, miner)).toBe(1);
    expect(await balances.getBalance(miner)).toMatchObject({ balance: 0n, inPayout: 0n, paid: 2n * COIN });
    expect((await balances.getHistory(miner)).map((h) => h.reason)).toContain('payout-reverted');
    await expectLedgerConsistent(redis, keyPrefix, [miner]);
  });

  it('a refusal that repeats ("MixIn count is too big"): one batch, then a pause, not a new batch every pass', async () => {
    const keyPrefix = uniquePrefix('mixin');
    const miner = minerAddress('mixin-1');
    await fundMiners(redis, keyPrefix, [[miner, 2n * COIN]]);
    devnet.control.refuseSends(5);
    const refusals: string[] = [];
    const first = await payoutRunnerFor(
      redis,
      keyPrefix,
      { wallet, logger: silentLogger, onRepeatingRefusal: (reason) => refusals.push(reason) },
      { minPayoutAtomic: COIN },
    ).runOnce();
    expect(first.batches.map((b) => b.state)).toEqual(['failed']);
    expect(first.skipped).toBe('backoff');
    expect(refusals).toEqual([expect.stringContaining('MixIn count is too big')]);
    for (const offsetMs of [0, 5 * 60_000]) {
      const paused = await runner(keyPrefix, { clockOffsetMs: offsetMs }).runOnce();
      expect(paused.skipped).toBe('backoff');
      expect(paused.batches).toEqual([]);
      expect(paused.skippedMiners[0]!.reason).toContain('MixIn count is too big');
    }
    const failed = await new PayoutStore({ keyPrefix }, { redis }).listFailedBatches();
    expect(failed).toHaveLength(1);
    devnet.control.refuseSends(0);
    const resumed = await runner(keyPrefix, { clockOffsetMs: 11 * 60_000 }).runOnce();
    expect(resumed.batches.map((b) => b.state)).toEqual(['sent']);
    expect(await new PayoutWatchStore({ keyPrefix }, { redis }).getBackoff()).toBeNull();
  });

  it('a miner held for a reason is logged once at warn, not on every pass, and again when the reason changes', async () => {
    const keyPrefix = uniquePrefix('held');
    const miner = minerAddress('held-1');
    const huge = 10n ** 9n * COIN;
    await fundMiners(redis, keyPrefix, [[miner, huge]]);
    const { logger, lines } = capturingLogger();
    for (let pass = 0; pass < 3; pass++) await runner(keyPrefix, { logger }).runOnce();
    const held = lines().filter((line) => line['msg'] === 'payout held');
    expect(held).toEqual([
      expect.objectContaining({ level: 40, address: miner, reason: 'wallet balance too low for this batch' }),
    ]);
    const watch = new PayoutWatchStore({ keyPrefix }, { redis });
    expect(await watch.listHeld()).toEqual([
      expect.objectContaining({
        address: miner,
        amountAtomic: huge,
        reason: 'wallet balance too low for this batch',
      }),
    ]);
    await runner(keyPrefix, { logger, overrides: { maxBatchesPerRun: 1 }, clockOffsetMs: 0 }).runOnce();
    expect(lines().filter((line) => line['msg'] === 'payout held')).toHaveLength(1);
  });
});
