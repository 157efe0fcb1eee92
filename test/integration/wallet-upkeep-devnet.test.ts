import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPayoutPass } from '../../src/app/money-services.js';
import { parseConfig } from '../../src/config/load-config.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import type { DevnetConfigInput } from '../../src/devnet/devnet-config.js';
import type { PayoutStep } from '../../src/leader/payouts/batch-sender.js';
import { runPayoutPass } from '../../src/leader/payouts/payout-pass.js';
import { FUSION_SPENDABLE_BLOCKS } from '../../src/leader/payouts/wallet-upkeep.js';
import type { WalletClient } from '../../src/rpc/wallet-client.js';
import { RedisBalances } from '../../src/store/payments/balances-store.js';
import { PayoutStore } from '../../src/store/payments/payout-store.js';
import { WalletUpkeepStore } from '../../src/store/payments/wallet-upkeep-store.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import {
  expectPaidExactlyOnce,
  fundMiners,
  minerAddress,
  unlessWalletHeld,
  walletClientFor,
} from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

/**
 * The wallet upkeep with the payout runner, as the leader runs them (createPayoutPass +
 * runPayoutPass), against the devnet walletd (its fusion rules, input selection and 799400-byte
 * limit) and a real Redis whose AOF is fsynced before each reply (payouts refuse anything less).
 */

const COIN = 10_000_000n;
/** Blocks mined here add nothing to the pool wallet. */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

describe('wallet upkeep through payout passes on the devnet', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet | undefined;
  let wallet: WalletClient | undefined;

  beforeAll(async () => {
    server = await startTestRedis({ appendOnly: true });
    redis = await createRedisClient({ url: server.url }, silentLogger);
  });

  afterEach(async () => {
    wallet?.close();
    await devnet?.stop();
    devnet = undefined;
  });

  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  /**
   * A pool wallet holding only its own coinbase outputs (no premine; ~7.6 XFG a block in 8
   * outputs, 4 of them above the dust limit), all spendable, coinbases maturing in 10 blocks.
   */
  async function poolWallet(blocks: number, config: DevnetConfigInput['wallet'] = {}) {
    devnet = await startTestDevnet({
      wallet: { prefundCoins: 0, ...config },
      daemon: { coinbaseMaturityBlocks: 10 },
    });
    devnet.control.mineBlocks(blocks);
    devnet.control.mineBlocks(10, FOREIGN);
    wallet = walletClientFor(devnet, 20_000);
    return { devnet, wallet };
  }

  function passFor(
    keyPrefix: string,
    walletUpkeep: Record<string, unknown>,
    afterStep?: (step: PayoutStep) => void,
  ) {
    const config = parseConfig({
      redis: { keyPrefix },
      payments: { payouts: { minPayoutCoins: '1', walletUpkeep } },
    });
    const parts = createPayoutPass(config, {
      redis,
      wallet: wallet!,
      logger: silentLogger,
      ...(afterStep ? { faults: { reached: afterStep } } : {}),
    });
    // A pass the loaded machine's wallet held is run again (seen once in a full run).
    return { ...parts, run: () => unlessWalletHeld(() => runPayoutPass({ ...parts, logger: silentLogger })) };
  }

  const mempoolFusions = () => devnet!.chain.mempool().filter((tx) => tx.feeAtomic === 0n);

  it('a payout too big for one transaction (13): backoff, fusions, a held pass, then paid once', async () => {
    const { devnet, wallet } = await poolWallet(900);
    const keyPrefix = uniquePrefix('upkeep-too-big');
    const available = BigInt((await wallet.getBalance()).availableBalance);
    const owed = available - 100n * COIN;
    const miners = ['big-1', 'big-2', 'big-3'].map(minerAddress);
    const credits = [
      [miners[0]!, owed / 2n],
      [miners[1]!, owed / 4n],
      [miners[2]!, owed - owed / 2n - owed / 4n],
    ] as const;
    await fundMiners(redis, keyPrefix, credits);
    // Only the refusal may trigger the upkeep here (never the share of ready outputs).
    const pass = passFor(keyPrefix, { readyShare: 1 });

    const refused = await pass.run();
    expect(refused.skipped).toBe('backoff');
    expect(refused.batches.map((b) => b.state)).toEqual(['failed']);
    const store = new PayoutStore({ keyPrefix }, { redis });
    expect((await store.listFailedBatches())[0]?.failReason).toMatch(/size is too big/);
    // Right after the refusal: one fusion per power of ten of the coinbase outputs, nothing else.
    const fusions = mempoolFusions();
    expect(fusions.length).toBeGreaterThanOrEqual(4);
    expect(devnet.chain.mempool()).toHaveLength(fusions.length);
    expect(fusions.every((tx) => tx.tx.inputs.length >= 12)).toBe(true);
    expect(
      (await new WalletUpkeepStore({ keyPrefix }, { redis }).listFusions()).map((f) => f.trigger),
    ).toEqual(fusions.map(() => 'refusal'));
    const balances = new RedisBalances({ keyPrefix }, { redis });
    for (const [address, amount] of credits) {
      expect(await balances.getBalance(address)).toMatchObject({ balance: amount, inPayout: 0n });
    }

    // Until the joined outputs are spendable the pass holds every due miner, and sends nothing.
    const held = await pass.run();
    expect(held.skipped).toBe('wallet-upkeep');
    expect(held.skippedMiners.map((m) => m.address).sort()).toEqual([...miners].sort());
    expect(new Set(held.skippedMiners.map((m) => m.reason))).toEqual(new Set([held.detail]));
    devnet.control.mineBlocks(FUSION_SPENDABLE_BLOCKS - 1, FOREIGN);
    expect((await pass.run()).skipped).toBe('wallet-upkeep');
    expect(await store.listOpenBatches()).toEqual([]);

    // Spendable (walletd counts one block more than the devnet): the backoff is lifted, paid at once.
    devnet.control.mineBlocks(1, FOREIGN);
    const paid = await pass.run();
    expect(paid.skipped).toBeNull();
    expect(paid.batches.map((b) => [b.state, b.recipients])).toEqual([['sent', 3]]);
    const [payout] = devnet.chain.mempool();
    expect(payout?.tx.inputs.length).toBeLessThan(100);
    devnet.control.mineBlocks(1, FOREIGN);
    expect((await pass.run()).batches).toEqual([]);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
    await expectLedgerConsistent(redis, keyPrefix, miners);
  }, 120_000);

  it('a payout refused for lack of decoys (6): the same consolidation, then paid once', async () => {
    const { devnet } = await poolWallet(120);
    const keyPrefix = uniquePrefix('upkeep-mixin');
    const miner = minerAddress('mixin-1');
    const credits = [[miner, 6n * COIN]] as const;
    await fundMiners(redis, keyPrefix, credits);
    const pass = passFor(keyPrefix, { readyShare: 1 });
    // walletd's answer on a chain without decoys for the wallet's amounts.
    devnet.control.refuseSends(1);
    const refused = await pass.run();
    expect(refused.skipped).toBe('backoff');
    expect(mempoolFusions().length).toBeGreaterThan(0);
    expect((await pass.run()).skipped).toBe('wallet-upkeep');
    devnet.control.mineBlocks(FUSION_SPENDABLE_BLOCKS, FOREIGN);
    expect((await pass.run()).batches.map((b) => b.state)).toEqual(['sent']);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
  });

  it('the share trigger: fusions before the payout when enough outputs are ready, none below it', async () => {
    const { devnet, wallet } = await poolWallet(120);
    const estimate = await wallet.estimateFusion({ thresholdAtomic: 100n * COIN });
    const share = estimate.fusionReadyCount / estimate.totalOutputCount;
    expect(share).toBeGreaterThan(0.3);

    const calm = uniquePrefix('upkeep-share-below');
    await fundMiners(redis, calm, [[minerAddress('share-0'), 2n * COIN]]);
    const below = await passFor(calm, { readyShare: Math.min(1, share + 0.05) }).run();
    expect(below.batches.map((b) => b.state)).toEqual(['sent']);
    expect(mempoolFusions()).toEqual([]);
    devnet.control.mineBlocks(11, FOREIGN);

    const keyPrefix = uniquePrefix('upkeep-share');
    const miner = minerAddress('share-1');
    const credits = [[miner, 3n * COIN]] as const;
    await fundMiners(redis, keyPrefix, credits);
    const pass = passFor(keyPrefix, { readyShare: share - 0.05, maxFusionsPerRun: 2 });
    const held = await pass.run();
    expect(held.skipped).toBe('wallet-upkeep');
    expect(held.skippedMiners.map((m) => m.address)).toEqual([miner]);
    expect(mempoolFusions()).toHaveLength(2);
    devnet.control.mineBlocks(FUSION_SPENDABLE_BLOCKS, FOREIGN);
    // Payouts go first once the fusions are spendable, even with outputs still ready to join.
    expect((await pass.run()).batches.map((b) => b.state)).toEqual(['sent']);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
  });

  it('sends no fusion while a payout batch is open, and consolidates once it is settled', async () => {
    const { devnet } = await poolWallet(120);
    const keyPrefix = uniquePrefix('upkeep-open');
    const miner = minerAddress('open-1');
    const credits = [[miner, 4n * COIN]] as const;
    await fundMiners(redis, keyPrefix, credits);
    let crash = true;
    // Any ready output is reason enough to consolidate here.
    const pass = passFor(keyPrefix, { readyShare: 0.01 }, (step) => {
      if (crash && step === 'intent-written') throw new Error('crash after the intent');
    });
    await expect(pass.payouts.runOnce()).rejects.toThrow('crash after the intent');
    crash = false;
    const store = new PayoutStore({ keyPrefix }, { redis });
    expect(await store.listOpenBatches()).toHaveLength(1);

    const operator = await pass.upkeep.runOnce({ operator: true });
    expect(operator).toMatchObject({ state: 'deferred', sent: [] });
    expect(mempoolFusions()).toEqual([]);
    // The next pass: the upkeep still sees the batch open and waits; the runner settles it
    // (never handed to the wallet: rolled back) and pays.
    const settled = await pass.run();
    expect(settled.recovered.map((b) => b.state)).toEqual(['failed']);
    expect(settled.batches.map((b) => b.state)).toEqual(['sent']);
    expect(mempoolFusions()).toEqual([]);
    expect(devnet.chain.mempool()).toHaveLength(1);
    // Nothing open any more: the next pass consolidates first.
    expect((await pass.run()).skipped).toBe('wallet-upkeep');
    expect(mempoolFusions().length).toBeGreaterThan(0);
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
  });
});
