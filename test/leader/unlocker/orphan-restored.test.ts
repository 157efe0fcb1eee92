import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMoneyReport } from '../../../src/app/money-report.js';
import { formatMoneyReport } from '../../../src/cli/commands/report.js';
import { formatAtomic } from '../../../src/fuego/money.js';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import type { BlockUnlocker } from '../../../src/leader/unlocker/block-unlocker.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import type { PaymentSchemeName } from '../../../src/pool/schemes/payment-scheme-name.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { walletHolding } from '../../helpers/wallet-holding.js';
import {
  ADDRESSES,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from '../payouts/money-invariants.js';
import { type DevnetUnlockerEnv, startDevnetUnlockerEnv, unlockerOn } from './unlocker-kit.js';

const [A, B] = ADDRESSES;

/**
 * Found by the money soak (test/faults/money-soak.test.ts). A pool block another block replaced is
 * decided orphaned once that block is confirmDepth deep. A reorg deeper than confirmDepth can put
 * the pool's block back on the main chain: its reward is then in the pool's wallet (the coinbase
 * pays it), and the miners whose shares found it are owed it. Within the reorg watch's window the
 * unlocker makes such a block pending again and credits it at depth as it would have: PPLNS by the
 * window fixed at the find (kept when the block was orphaned). PROP merged the block's round into
 * the next one when it was orphaned, which paid those shares: the block is not credited, and the
 * operator is told once (block-orphan-back-uncredited) and shown it by `fuego-pool report`: its
 * reward is in the wallet, owed to nobody by the ledger. So is a PPLNS block whose window was not
 * kept (orphaned by an older version).
 */
describe('a pool block decided orphaned that a deeper reorg puts back on the main chain', () => {
  let env: DevnetUnlockerEnv | undefined;

  beforeAll(async () => {
    env = await startDevnetUnlockerEnv();
  });

  afterAll(async () => {
    await env?.stop();
  });

  /** A's pool block, orphaned at confirmDepth 4, then put back by a 6-deep reorg. */
  async function orphanedThenRestored(
    scheme: PaymentSchemeName,
    audit = false,
    beforeRestore: (hash: string, keyPrefix: string) => Promise<unknown> = async () => undefined,
  ) {
    const { redis, devnet, daemon } = env!;
    const clock = { nowMs: Date.now() };
    const keyPrefix = uniquePrefix(`orphan-restored-${scheme}`);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    const unlocker = unlockerOn(
      redis,
      keyPrefix,
      { scheme, confirmDepth: 4, reorgWatchBlocks: 8, ...(audit ? { reorgAuditBlocks: 100 } : {}) },
      { daemon, logger: silentLogger, clock: () => clock.nowMs },
    );
    await ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
    const [block] = devnet.control.mineBlocks(1);
    const { id: hash, height } = block!;
    await ledger.writeBlockCandidate(
      makeCandidate({ hash, height, networkDifficulty: 1000n, share: makeShare({ address: A }) }),
    );
    // Another block at its height, 4 deep: orphaned, final as the unlocker sees it.
    devnet.control.mineOnBlock(devnet.chain.blockAt(height - 1)!.id, 2);
    devnet.control.mineBlocks(3);
    expect((await unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash, outcome: 'orphaned' }),
    ]);
    await beforeRestore(hash, keyPrefix);
    // A 6-deep reorg (within confirmDepth + reorgWatchBlocks) puts the pool's block back.
    devnet.control.mineOnBlock(hash, devnet.chain.height - height);
    expect(devnet.chain.blockAt(height)?.id).toBe(hash);
    const unlockerAgain = () =>
      unlockerOn(
        redis,
        keyPrefix,
        { scheme, confirmDepth: 4, reorgWatchBlocks: 8 },
        { daemon, logger: silentLogger, clock: () => clock.nowMs },
      );
    return { redis, keyPrefix, ledger, unlocker, unlockerAgain, hash, height, clock };
  }

  it('PPLNS: pending again, then credited at depth by the window fixed at the find, once', async () => {
    const { redis, keyPrefix, ledger, unlocker, hash } = await orphanedThenRestored('pplns');
    // The run that sees it back makes it pending again; the next decides it at depth.
    await unlocker.runOnce();
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ status: 'pending' });
    const summary = await unlocker.runOnce();
    expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'confirmed' })]);
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ status: 'confirmed' });
    // The finder's share fills the window: all of it to A, less the 1 % pool fee.
    const reward = BigInt(summary.decisions[0]!.rewardAtomic ?? 0n);
    expect(reward).toBeGreaterThan(0n);
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(A)).credited).toBe(reward - reward / 100n);
    await expectLedgerConsistent(redis, keyPrefix, [A, B]);
    expect((await unlocker.runOnce()).decisions).toEqual([]);
  });

  it('put back while no unlock run looked (past the watch window): the reorg audit finds it, then it is credited', async () => {
    const { redis, keyPrefix, ledger, unlocker, hash, clock } = await orphanedThenRestored('pplns', true);
    // The leader was away for two hours: the block is past confirmDepth + reorgWatchBlocks when a
    // run next looks, and the hourly audit is due.
    env!.devnet.control.mineBlocks(15);
    clock.nowMs += 2 * 3_600_000;
    await unlocker.runOnce();
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ status: 'pending' });
    const summary = await unlocker.runOnce();
    expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'confirmed' })]);
    await expectLedgerConsistent(redis, keyPrefix, [A, B]);
  });

  it('PROP: stays orphaned and credits nobody (its round was merged into the next one)', async () => {
    const { redis, keyPrefix, ledger, unlocker, hash } = await orphanedThenRestored('prop');
    await unlocker.runOnce();
    await unlocker.runOnce();
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ status: 'orphaned' });
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(A)).credited).toBe(0n);
    // Its round's shares wait in the open round for the next block.
    expect(await ledger.getRoundContributions()).toEqual(
      new Map([
        [A, 5_000n],
        [B, 800n],
      ]),
    );
  });

  /** A leader loop on `unlocker` and what it publishes as block-orphan-back-uncredited. */
  function leaderOn(unlocker: BlockUnlocker) {
    const events = createPoolEventBus(() => undefined);
    const told: PoolEventMap['block-orphan-back-uncredited'][] = [];
    events.subscribe('block-orphan-back-uncredited', (payload) => told.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      { unlocker, payouts: undefined as never, events, logger: silentLogger },
    );
    return { loop, told };
  }

  async function rewardOf(hash: string): Promise<bigint> {
    return BigInt((await env!.daemon.getBlockHeaderByHash(hash)).reward);
  }

  async function reportOf(keyPrefix: string) {
    const report = await readMoneyReport(keyPrefix, {
      redis: env!.redis,
      wallet: walletHolding(10n ** 15n),
      durability: { replicas: 0, timeoutMs: 100 },
    });
    return { report, printed: formatMoneyReport(report, Date.now()) };
  }

  it('PROP: the leader tells block-orphan-back-uncredited once (reward, reason), not again after a restart', async () => {
    const { hash, height, unlocker, unlockerAgain } = await orphanedThenRestored('prop');
    const reward = await rewardOf(hash);
    const first = leaderOn(unlocker);
    await first.loop.unlockOnce();
    await first.loop.unlockOnce();
    expect(first.told).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'round-merged', timestampMs: expect.any(Number) },
    ]);
    // A restart, or another process taking the lead: a new unlocker on the same Redis says nothing.
    const second = leaderOn(unlockerAgain());
    await second.loop.unlockOnce();
    await second.loop.unlockOnce();
    expect(second.told).toEqual([]);
  });

  it('PROP: fuego-pool report lists it (height, hash, reward, why) as pool surplus, informational', async () => {
    const { hash, height, unlocker, keyPrefix } = await orphanedThenRestored('prop');
    const reward = await rewardOf(hash);
    expect((await reportOf(keyPrefix)).report.orphanedBackOnChain).toEqual([]);
    await unlocker.runOnce();
    const { report, printed } = await reportOf(keyPrefix);
    expect(report.orphanedBackOnChain).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'round-merged', backOnChainAtMs: expect.any(Number) },
    ]);
    const text = printed.lines.join('\n');
    expect(text).toContain('== orphaned blocks back on the main chain, not credited');
    const line = printed.lines.find((l) => l.includes(hash));
    expect(line).toContain(`height ${height}`);
    expect(line).toContain(formatAtomic(reward));
    expect(line).toContain('PROP round merged into the next');
    expect(text).toContain('pool surplus');
    // Nothing is owed to anyone: informational, the report's exit code is what it was without it
    // (the test Redis is not durable, which is unhealthy on its own).
    expect(printed.healthy).toBe(formatMoneyReport({ ...report, orphanedBackOnChain: [] }, 0).healthy);
  });

  it('PPLNS without its kept window (orphaned by an older version): not credited, told once with the reason, reported with `balance adjust`', async () => {
    const { hash, height, unlocker, unlockerAgain, keyPrefix, ledger } = await orphanedThenRestored(
      'pplns',
      false,
      // An older version did not keep the window when it orphaned the block.
      (blockHash, prefix) => env!.redis.del(createShareKeys(prefix).blockWindow(blockHash)),
    );
    const reward = await rewardOf(hash);
    const first = leaderOn(unlocker);
    await first.loop.unlockOnce();
    await first.loop.unlockOnce();
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ status: 'orphaned' });
    expect(first.told).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'no-window', timestampMs: expect.any(Number) },
    ]);
    const second = leaderOn(unlockerAgain());
    await second.loop.unlockOnce();
    expect(second.told).toEqual([]);
    const { report, printed } = await reportOf(keyPrefix);
    expect(report.orphanedBackOnChain).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'no-window', backOnChainAtMs: expect.any(Number) },
    ]);
    const text = printed.lines.join('\n');
    expect(printed.lines.find((l) => l.includes(hash))).toContain('no kept PPLNS window');
    expect(text).toContain('fuego-pool balance adjust');
    expect(printed.healthy).toBe(formatMoneyReport({ ...report, orphanedBackOnChain: [] }, 0).healthy);
    expect(formatMoneyReport({ ...report, durability: { kind: 'aof-always' } }, 0).healthy).toBe(true);
  });

  it('PROP, noted back on chain by an older version (which only logged it): told once and reported after the upgrade', async () => {
    const { redis, hash, height, unlocker, unlockerAgain, keyPrefix } = await orphanedThenRestored('prop');
    // The older version's note: backOnChainAtMs alone, then a warn line.
    await redis.hset(createShareKeys(keyPrefix).block(hash), 'backOnChainAtMs', '1700000000000');
    const reward = await rewardOf(hash);
    const first = leaderOn(unlocker);
    await first.loop.unlockOnce();
    await first.loop.unlockOnce();
    expect(first.told).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'round-merged', timestampMs: expect.any(Number) },
    ]);
    const second = leaderOn(unlockerAgain());
    await second.loop.unlockOnce();
    expect(second.told).toEqual([]);
    // Back on chain since the older version saw it.
    expect((await reportOf(keyPrefix)).report.orphanedBackOnChain).toEqual([
      { height, hash, rewardAtomic: reward, reason: 'round-merged', backOnChainAtMs: 1_700_000_000_000 },
    ]);
  });
});
