import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type OrphanSettleMode, settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import type { UnlockerChain } from '../../../src/leader/unlocker/block-unlocker.js';
import { TrustedChainUnlocker } from '../../../src/leader/unlocker/trusted-chain-unlocker.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from '../payouts/money-invariants.js';
import { REWARD, SOLO_CREDIT, stubChain, unlockerOn } from './unlocker-kit.js';

const [FINDER] = ADDRESSES;
const CREDIT = SOLO_CREDIT;
const HOUR_MS = 3_600_000;
/** Decided at 10 deep, watched until 30 deep; the audit checks the 150 heights under that. */
const OPTIONS = {
  confirmDepth: 10,
  reorgWatchBlocks: 20,
  reorgAuditBlocks: 150,
  reorgAuditIntervalMs: HOUR_MS,
};

/** Where the leader keeps when the last audit started (ms), under the pool's prefix. */
const lastAuditKey = (keyPrefix: string) =>
  `${createPaymentKeys(keyPrefix).tag}:unlocker:reorg-audit:last-run`;

/**
 * The periodic reorg audit of credited blocks older than the watch window, against a stub chain
 * whose tip moves and whose blocks a "reorg" replaces (`replaced` heights), on a real Redis.
 */
describe('the reorg audit of credited blocks below the watch window', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  async function setup(label: string, heights: readonly number[]) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    for (const height of heights) {
      const share = makeShare({ solo: true, address: FINDER });
      await ledger.writeBlockCandidate(makeCandidate({ height, hash: blockHash(height), share }));
    }
    const chain = { tip: Math.max(...heights) + OPTIONS.confirmDepth, replaced: new Set<number>() };
    const hashAt = (height: number) =>
      chain.replaced.has(height) ? blockHash(0x10_000 + height) : blockHash(height);
    const listCalls: number[] = [];
    /** Heights whose block-list call fails (the daemon went away mid-pass). */
    const failingLists = new Set<number>();
    const daemon: UnlockerChain = {
      getBlockCount: () => stubChain(chain.tip, hashAt, REWARD).getBlockCount(),
      getBlockHeaderByHeight: (height) => stubChain(chain.tip, hashAt, REWARD).getBlockHeaderByHeight(height),
      getBlocksList: (height) => {
        listCalls.push(height);
        if (failingLists.has(height)) throw new Error('daemon went away');
        return stubChain(chain.tip, hashAt, REWARD).getBlocksList(height);
      },
    };
    const clock = { nowMs: 1_800_000_000_000 };
    const logs = captureLogs();
    const unlocker = (reorgAuditBlocks = OPTIONS.reorgAuditBlocks) =>
      unlockerOn(
        redis,
        keyPrefix,
        { ...OPTIONS, reorgAuditBlocks },
        { daemon, logger: logs.logger, clock: () => clock.nowMs },
      );
    const leader = unlocker();
    const credited = await leader.runOnce();
    expect(credited.decisions.map((d) => d.outcome)).toEqual(heights.map(() => 'confirmed'));
    listCalls.length = 0;
    return {
      keyPrefix,
      ledger,
      chain,
      listCalls,
      failingLists,
      clock,
      logs,
      leader,
      unlocker,
      daemon,
      money: createPaymentKeys(keyPrefix),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  it('flags a credited block a reorg replaced deeper than the watch reaches, once, and debits nobody', async () => {
    const s = await setup('audit-flags', [10, 40, 50, 100]);
    // 200 blocks high: the watch reaches down to height 170, the audit from 169 to 20.
    s.chain.tip = 200;
    s.chain.replaced = new Set([10, 50, 100]);
    // The gap the audit closes: the watch alone sees none of them.
    expect((await s.unlocker(0).runOnce()).decisions).toEqual([]);
    expect(s.listCalls).toEqual([]);

    s.clock.nowMs += HOUR_MS;
    const summary = await s.leader.runOnce();
    expect(summary.decisions).toEqual([
      expect.objectContaining({ hash: blockHash(100), height: 100, outcome: 'orphaned-after-credit' }),
      expect.objectContaining({ hash: blockHash(50), height: 50, outcome: 'orphaned-after-credit' }),
    ]);
    expect(summary.decisions[0]).toMatchObject({ rewardAtomic: BigInt(REWARD) });
    // One block-list call per ~30 heights holding credited blocks: 100 (down to 71), 50 (down to 21).
    expect(s.listCalls).toEqual([100, 50]);
    // Flagged exactly as the watch flags: the record, the list `fuego-pool report` and the metric read.
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([
      blockHash(50),
      blockHash(100),
    ]);
    expect(await s.ledger.getBlockCandidate(blockHash(100))).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: true,
    });
    // Height 10 is below the audit's reach (200 - 30 - 150 = 20); 40 is still the chain's block.
    expect(await s.ledger.getBlockCandidate(blockHash(10))).toMatchObject({ orphanedAfterCredit: false });
    expect(await s.ledger.getBlockCandidate(blockHash(40))).toMatchObject({ orphanedAfterCredit: false });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(4n * CREDIT);
    const errors = s.logs.records.filter((r) => r['level'] === 50).map((r) => r['hash']);
    expect(errors).toEqual([blockHash(100), blockHash(50)]);

    // The next audit reads the flagged blocks too (a later reorg may restore them), in the same
    // ranges, and flags nothing again.
    s.clock.nowMs += HOUR_MS;
    expect((await s.leader.runOnce()).decisions).toEqual([]);
    expect(s.listCalls).toEqual([100, 50, 100, 50]);
    expect(await redis.zcard(s.money.blocksOrphanedAfterCredit)).toBe(2);
  });

  it('audits at most once per reorgAuditIntervalSec, the first in the first run', async () => {
    const s = await setup('audit-interval', [50]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([50]);
    // setup's run (the block credited) was the first audit: the next is due an hour later.
    s.clock.nowMs += HOUR_MS - 1;
    expect((await s.leader.runOnce()).decisions).toEqual([]);
    expect(s.listCalls).toEqual([]);
    s.clock.nowMs += 1;
    expect((await s.leader.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
    expect(s.listCalls).toEqual([50]);
  });

  it('keeps the last audit time in Redis: a new leader on the same Redis audits only when the interval is up', async () => {
    const s = await setup('audit-interval-restart', [50]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([50]);
    // A restart, or a failover to a standby: a new unlocker, the same Redis, setup's audit 1 ms short of an hour ago.
    s.clock.nowMs += HOUR_MS - 1;
    expect((await s.unlocker().runOnce()).decisions).toEqual([]);
    expect(s.listCalls).toEqual([]);
    expect(await redis.get(lastAuditKey(s.keyPrefix))).toBe(String(s.clock.nowMs - HOUR_MS + 1));
    s.clock.nowMs += 1;
    expect((await s.unlocker().runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
    expect(s.listCalls).toEqual([50]);
    expect(await redis.get(lastAuditKey(s.keyPrefix))).toBe(String(s.clock.nowMs));
    // The next leader again: this audit holds for it too.
    s.listCalls.length = 0;
    s.clock.nowMs += HOUR_MS - 1;
    await s.unlocker().runOnce();
    expect(s.listCalls).toEqual([]);
  });

  it('a stale leader neither audits nor moves the last audit time (fenced like its other writes)', async () => {
    const s = await setup('audit-interval-fenced', [50]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([50]);
    const before = await redis.get(lastAuditKey(s.keyPrefix));
    await redis.set(s.money.leaderToken, 'leader-2');
    const as = (token: string) =>
      unlockerOn(redis, s.keyPrefix, OPTIONS, {
        daemon: stubChain(s.chain.tip, (h) => (h === 50 ? blockHash(0x10_000 + h) : blockHash(h)), REWARD),
        logger: s.logs.logger,
        clock: () => s.clock.nowMs,
        fencingToken: () => token,
      });
    s.clock.nowMs += HOUR_MS;
    await expect(as('leader-1').runOnce()).rejects.toMatchObject({ code: 'FENCED' });
    expect(await redis.get(lastAuditKey(s.keyPrefix))).toBe(before);
    expect(await s.ledger.getBlockCandidate(blockHash(50))).toMatchObject({ orphanedAfterCredit: false });
    expect((await as('leader-2').runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
    expect(await redis.get(lastAuditKey(s.keyPrefix))).toBe(String(s.clock.nowMs));
  });

  it('reads blocks flagged (or settled) below the watch window in the same range reads, and while they stay replaced flags nothing again and changes no record', async () => {
    const s = await setup('audit-skips', [50, 55]);
    s.chain.replaced = new Set([50, 55]);
    // Still watched (10 deep): the watch flags both; the operator absorbs one.
    expect((await s.leader.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(55), outcome: 'orphaned-after-credit' }),
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
    await settleOrphanedBlock(
      s.keyPrefix,
      { redis },
      { hash: blockHash(50), mode: 'absorb', note: '', dryRun: false },
    );
    const settledRecord = await redis.hgetall(createShareKeys(s.keyPrefix).block(blockHash(50)));
    s.chain.tip = 200;
    s.listCalls.length = 0;
    s.clock.nowMs += HOUR_MS;

    expect((await s.leader.runOnce()).decisions).toEqual([]);
    // One call for both (55 down to 26): a restore would be seen, as the watch sees one.
    expect(s.listCalls).toEqual([55]);
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([blockHash(55)]);
    expect(await redis.zrange(s.money.blocksOrphanSettled, 0, -1)).toEqual([blockHash(50)]);
    expect(await redis.hgetall(createShareKeys(s.keyPrefix).block(blockHash(50)))).toEqual(settledRecord);
  });

  /** Blocks 50 and 55 flagged by the watch (10 deep), the tip then moved to 200: both below the watch. */
  async function flaggedThenAudited(label: string) {
    const s = await setup(label, [50, 55]);
    s.chain.replaced = new Set([50, 55]);
    expect((await s.leader.runOnce()).decisions.map((d) => d.outcome)).toEqual([
      'orphaned-after-credit',
      'orphaned-after-credit',
    ]);
    s.chain.tip = 200;
    s.listCalls.length = 0;
    s.clock.nowMs += HOUR_MS;
    const events = createPoolEventBus(() => undefined);
    const restored: PoolEventMap['block-orphan-restored'][] = [];
    events.subscribe('block-orphan-restored', (payload) => restored.push(payload));
    const undone: PoolEventMap['block-orphan-restore-undone'][] = [];
    events.subscribe('block-orphan-restore-undone', (payload) => undone.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: HOUR_MS, payoutIntervalMs: null },
      { unlocker: s.leader, payouts: undefined as never, events, logger: silentLogger },
    );
    const settle = (hash: string, mode: OrphanSettleMode) =>
      settleOrphanedBlock(s.keyPrefix, { redis, daemon: s.daemon }, { hash, mode, note: '', dryRun: false });
    const messages = (level: number) =>
      s.logs.records.filter((r) => r['level'] === level).map((r) => String(r['msg']));
    return { ...s, loop, restored, undone, settle, messages };
  }

  it('unflags a flagged block below the watch window that a later reorg restores, as the watch does', async () => {
    const s = await flaggedThenAudited('audit-restore-unflag');
    s.chain.replaced = new Set([55]);
    await s.loop.unlockOnce();
    expect(s.listCalls).toEqual([55]);
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([blockHash(55)]);
    expect(await s.ledger.getBlockCandidate(blockHash(50))).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: false,
    });
    expect(await redis.hget(createShareKeys(s.keyPrefix).block(blockHash(50)), 'restoredAtMs')).toMatch(
      /^\d+$/,
    );
    expect(s.messages(40)).toContain(
      'block orphaned after credit is back on the main chain (a later reorg): unflagged',
    );
    expect(s.restored).toEqual([
      expect.objectContaining({ hash: blockHash(50), height: 50, outcome: 'unflagged' }),
    ]);
    expect((await s.balances.getBalance(FINDER)).balance).toBe(2n * CREDIT);
    // A credited block again: the next audit flags it if a reorg takes it again.
    s.chain.replaced = new Set([50, 55]);
    s.clock.nowMs += HOUR_MS;
    expect((await s.leader.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
  });

  it('notes a clawed-back block below the watch window restored (credit back owed, notified once), and undoes that when it is replaced again', async () => {
    const s = await flaggedThenAudited('audit-restore-clawed');
    await s.settle(blockHash(50), 'clawback');
    await s.settle(blockHash(55), 'absorb');
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    s.chain.replaced = new Set();
    await s.loop.unlockOnce();
    expect(s.restored.map((e) => [e.hash, e.outcome])).toEqual([
      [blockHash(55), 'absorbed'],
      [blockHash(50), 'clawed-back'],
    ]);
    expect(await redis.zrange(s.money.blocksRestoredAfterClawback, 0, -1)).toEqual([blockHash(50)]);
    expect(s.messages(50)).toContain(
      'block orphaned after credit and clawed back is back on the main chain: its miners are owed the clawback again, see fuego-pool report (fuego-pool block settle HASH --credit-back)',
    );
    // Noted once: the next audit reads them and notes nothing again.
    s.clock.nowMs += HOUR_MS;
    await s.loop.unlockOnce();
    expect(s.restored).toHaveLength(2);

    // Replaced again before the credit back: the restore is undone, the credit back refused.
    s.chain.replaced = new Set([50]);
    s.clock.nowMs += HOUR_MS;
    await s.loop.unlockOnce();
    expect(s.undone).toEqual([
      expect.objectContaining({ hash: blockHash(50), height: 50, outcome: 'clawed-back' }),
    ]);
    expect(await redis.zcard(s.money.blocksRestoredAfterClawback)).toBe(0);
    expect(s.messages(40)).toContain(
      'clawed-back block restored by a reorg is replaced again: no credit back is owed any more',
    );
    await expect(s.settle(blockHash(50), 'credit-back')).rejects.toMatchObject({
      code: 'BLOCK_NOT_RESTORED',
    });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    await expectLedgerConsistent(redis, s.keyPrefix, [FINDER]);
  });

  it('publishes block-orphaned-after-credit once for a block the audit flags', async () => {
    const s = await setup('audit-event', [50]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([50]);
    const events = createPoolEventBus(() => undefined);
    const published: PoolEventMap['block-orphaned-after-credit'][] = [];
    events.subscribe('block-orphaned-after-credit', (payload) => published.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: HOUR_MS, payoutIntervalMs: null },
      // Payouts are off (null interval): the runner is never called.
      { unlocker: s.leader, payouts: undefined as never, events, logger: silentLogger },
    );
    for (let run = 0; run < 3; run++) {
      s.clock.nowMs += HOUR_MS;
      await loop.unlockOnce();
    }
    expect(published).toEqual([{ height: 50, hash: blockHash(50), rewardAtomic: BigInt(REWARD) }]);
  });

  it('a failing audit keeps what it flagged before the failure, and the watch’s flags, and is tried again an interval later', async () => {
    const s = await setup('audit-fails', [40, 100, 185]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([40, 100, 185]);
    s.failingLists.add(40);
    s.clock.nowMs += HOUR_MS;
    // The watch flags 185 (15 deep); the audit flags 100, then its call for 40 fails.
    expect((await s.leader.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(185), outcome: 'orphaned-after-credit' }),
      expect.objectContaining({ hash: blockHash(100), outcome: 'orphaned-after-credit' }),
    ]);
    expect(s.logs.records.map((r) => r['msg'])).toContain(
      'reorg audit of credited blocks below the watch window failed',
    );
    s.failingLists.clear();
    s.listCalls.length = 0;
    s.clock.nowMs += HOUR_MS - 1;
    expect((await s.leader.runOnce()).decisions).toEqual([]);
    expect(s.listCalls).toEqual([185]);
    s.clock.nowMs += 1;
    expect((await s.leader.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(40), outcome: 'orphaned-after-credit' }),
    ]);
  });

  it('decides nothing on a chain the leader does not trust, and flags the block once it does', async () => {
    const s = await setup('audit-untrusted', [50]);
    s.chain.tip = 200;
    s.chain.replaced = new Set([50]);
    s.clock.nowMs += HOUR_MS;
    const trust: { distrust: 'daemon-isolated' | null } = { distrust: 'daemon-isolated' };
    const trusted = new TrustedChainUnlocker({
      unlocker: s.leader,
      checks: [{ distrust: async () => trust.distrust }],
    });

    expect(await trusted.runOnce()).toEqual({ skipped: 'daemon-isolated', decisions: [] });
    expect(s.listCalls).toEqual([]);
    expect(await s.ledger.getBlockCandidate(blockHash(50))).toMatchObject({ orphanedAfterCredit: false });

    trust.distrust = null;
    expect((await trusted.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(50), outcome: 'orphaned-after-credit' }),
    ]);
  });
});
