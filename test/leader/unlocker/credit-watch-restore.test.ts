import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readMoneyReport } from '../../../src/app/money-report.js';
import { type OrphanSettleMode, settleOrphanedBlock } from '../../../src/app/orphan-block-settlement.js';
import { formatMoneyReport } from '../../../src/cli/commands/report.js';
import { formatAtomic } from '../../../src/fuego/money.js';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import type { UnlockerChain } from '../../../src/leader/unlocker/block-unlocker.js';
import type { ReorphanedBlock } from '../../../src/leader/unlocker/unlock-run-listener.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { walletHolding } from '../../helpers/wallet-holding.js';
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

/** A credited block a later reorg can take away (`replaced`) and give back, on a stub chain. */
describe('the reorg watch when a later reorg restores a block orphaned after credit', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  async function setup(label: string) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: captureLogs().logger },
    );
    const hash = blockHash(0x5000 + 50);
    await ledger.writeBlockCandidate(
      makeCandidate({ height: 50, hash, share: makeShare({ solo: true, address: FINDER }) }),
    );
    const chain = { replaced: false };
    const daemon = stubChain(
      100,
      (height) => (height === 50 && chain.replaced ? blockHash(0xbad) : hash),
      REWARD,
    );
    const logs = captureLogs();
    await redis.set(createPaymentKeys(keyPrefix).leaderToken, 'leader-1');
    const unlocker = (token = 'leader-1') =>
      unlockerOn(
        redis,
        keyPrefix,
        { confirmDepth: 10 },
        { daemon, logger: logs.logger, fencingToken: () => token },
      );
    expect((await unlocker().runOnce()).decisions).toEqual([
      expect.objectContaining({ hash, outcome: 'confirmed' }),
    ]);
    chain.replaced = true;
    expect((await unlocker().runOnce()).decisions).toEqual([
      expect.objectContaining({ hash, outcome: 'orphaned-after-credit' }),
    ]);
    return {
      keyPrefix,
      hash,
      chain,
      daemon,
      unlocker,
      logs,
      ledger,
      money: createPaymentKeys(keyPrefix),
      block: createShareKeys(keyPrefix).block(hash),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  async function reportText(keyPrefix: string): Promise<string> {
    const report = await readMoneyReport(keyPrefix, {
      redis,
      wallet: walletHolding(BigInt(REWARD)),
      durability: { replicas: 0, timeoutMs: 100 },
    });
    return formatMoneyReport(report, Date.now()).lines.join('\n');
  }

  /** The operator settles the block (not a dry run); a credit back reads the stub chain. */
  const settle = (s: { keyPrefix: string; hash: string; daemon: UnlockerChain }, mode: OrphanSettleMode) =>
    settleOrphanedBlock(
      s.keyPrefix,
      { redis, daemon: s.daemon },
      { hash: s.hash, mode, note: '', dryRun: false },
    );

  const messages = (logs: ReturnType<typeof captureLogs>, level: number) =>
    logs.records.filter((r) => r['level'] === level).map((r) => String(r['msg']));

  it('unflags a block not settled yet (warn), drops it from the flagged list, and flags it again if it goes again', async () => {
    const s = await setup('restore-unflag');
    s.chain.replaced = false;
    expect((await s.unlocker().runOnce()).decisions).toEqual([]);
    expect(await redis.zcard(s.money.blocksOrphanedAfterCredit)).toBe(0);
    expect(await s.ledger.getBlockCandidate(s.hash)).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: false,
    });
    expect(await redis.hget(s.block, 'restoredAtMs')).toMatch(/^\d+$/);
    expect(await redis.hget(s.block, 'observedHash')).toBeNull();
    expect(messages(s.logs, 40)).toEqual([
      'block orphaned after credit is back on the main chain (a later reorg): unflagged',
    ]);
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    expect(await reportText(s.keyPrefix)).not.toContain(s.hash);

    // Watched like any credited block again: a third reorg flags it again.
    s.chain.replaced = true;
    expect((await s.unlocker().runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: s.hash, outcome: 'orphaned-after-credit' }),
    ]);
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([s.hash]);
  });

  it('a stale leader unflags nothing', async () => {
    const s = await setup('restore-fenced');
    s.chain.replaced = false;
    await redis.set(s.money.leaderToken, 'leader-2');
    await expect(s.unlocker('leader-1').runOnce()).rejects.toMatchObject({ code: 'FENCED' });
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([s.hash]);
    await s.unlocker('leader-2').runOnce();
    expect(await redis.zcard(s.money.blocksOrphanedAfterCredit)).toBe(0);
  });

  it('a clawed-back block restored is noted once at error, not re-credited, and shown until the operator credits it back', async () => {
    const s = await setup('restore-clawed');
    await settle(s, 'clawback');
    expect((await s.balances.getBalance(FINDER)).balance).toBe(0n);

    s.chain.replaced = false;
    await s.unlocker().runOnce();
    await s.unlocker().runOnce();
    expect(
      messages(s.logs, 50).filter((m) => m.includes('clawed back is back on the main chain')),
    ).toHaveLength(1);
    expect((await s.balances.getBalance(FINDER)).balance).toBe(0n);
    expect(await redis.zrange(s.money.blocksRestoredAfterClawback, 0, -1)).toEqual([s.hash]);
    // On the main chain again: /api/blocks shows it confirmed.
    expect(await s.ledger.getBlockCandidate(s.hash)).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: false,
    });
    const text = await reportText(s.keyPrefix);
    expect(text).toContain(`height 50  ${s.hash}  clawed back ${formatAtomic(CREDIT)} XFG  restored`);
    expect(text).toContain('fuego-pool block settle HASH --credit-back');

    const back = await settle(s, 'credit-back');
    expect(back).toMatchObject({ applied: true, changeAtomic: CREDIT });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    expect((await s.balances.getHistory(FINDER)).map((e) => [e.reason, e.amountAtomic, e.ref])).toEqual([
      ['orphan-credit-back', CREDIT, s.hash],
      ['orphan-clawback', -CREDIT, s.hash],
      ['block-credit', CREDIT, s.hash],
    ]);
    expect((await s.balances.getTotals()).adjustments).toBe(0n);
    await expectLedgerConsistent(redis, s.keyPrefix, [FINDER]);
    expect(await redis.zcard(s.money.blocksRestoredAfterClawback)).toBe(0);
    const after = await reportText(s.keyPrefix);
    expect(after).not.toContain('--credit-back (gives');
    expect(after).toContain('restored');
    await expect(settle(s, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
  });

  it('an absorbed block restored is noted at warn: no money moves and nothing waits for the operator', async () => {
    const s = await setup('restore-absorbed');
    await settle(s, 'absorb');
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    expect(messages(s.logs, 40)).toContain(
      'block orphaned after credit and absorbed is back on the main chain: the loss did not happen',
    );
    expect(await redis.zcard(s.money.blocksRestoredAfterClawback)).toBe(0);
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    await expect(settle(s, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
  });

  /** The report's line for the block in the settled section (the last line naming it). */
  async function settledLine(s: { keyPrefix: string; hash: string }): Promise<string> {
    const lines = (await reportText(s.keyPrefix)).split('\n').filter((line) => line.includes(s.hash));
    return lines.at(-1) ?? '';
  }

  it('a clawed-back block restored and then replaced again is orphaned again: no credit back is pending, and one is refused', async () => {
    const s = await setup('reorphan-clawed');
    await settle(s, 'clawback');
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    expect(await redis.zrange(s.money.blocksRestoredAfterClawback, 0, -1)).toEqual([s.hash]);

    s.chain.replaced = true;
    expect((await s.unlocker().runOnce()).decisions).toEqual([]);
    expect(await redis.zcard(s.money.blocksRestoredAfterClawback)).toBe(0);
    expect(await s.ledger.getBlockCandidate(s.hash)).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: true,
    });
    const text = await reportText(s.keyPrefix);
    expect(text).not.toContain('--credit-back (gives');
    expect(await settledLine(s)).toContain(`${s.hash}  clawed-back`);
    expect(await settledLine(s)).not.toContain('restored');
    expect(messages(s.logs, 40)).toContain(
      'clawed-back block restored by a reorg is replaced again: no credit back is owed any more',
    );
    await expect(settle(s, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(0n);
    await expectLedgerConsistent(redis, s.keyPrefix, [FINDER]);

    // Still watched: a fourth reorg puts it back, and the credit back is owed again, once.
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    expect(await redis.zrange(s.money.blocksRestoredAfterClawback, 0, -1)).toEqual([s.hash]);
    expect(await settle(s, 'credit-back')).toMatchObject({ applied: true, changeAtomic: CREDIT });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    await expectLedgerConsistent(redis, s.keyPrefix, [FINDER]);
  });

  it('an absorbed block restored and then replaced again shows absorbed and orphaned again; no money moves', async () => {
    const s = await setup('reorphan-absorbed');
    await settle(s, 'absorb');
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    expect(await settledLine(s)).toContain('restored');

    s.chain.replaced = true;
    expect((await s.unlocker().runOnce()).decisions).toEqual([]);
    expect(await settledLine(s)).toContain(`${s.hash}  absorbed`);
    expect(await settledLine(s)).not.toContain('restored');
    expect(await s.ledger.getBlockCandidate(s.hash)).toMatchObject({ orphanedAfterCredit: true });
    expect(messages(s.logs, 40)).toContain(
      'absorbed block restored by a reorg is replaced again: the loss stands again',
    );
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    await expect(settle(s, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
  });

  it('a block credited back after its restore and then replaced again is flagged again for the operator: its credits stand once, and it can be settled again', async () => {
    const s = await setup('reorphan-credited-back');
    await settle(s, 'clawback');
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    await settle(s, 'credit-back');
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);

    s.chain.replaced = true;
    expect((await s.unlocker().runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: s.hash, outcome: 'orphaned-after-credit' }),
    ]);
    expect(await redis.zrange(s.money.blocksOrphanedAfterCredit, 0, -1)).toEqual([s.hash]);
    expect(await redis.zcard(s.money.blocksOrphanSettled)).toBe(0);
    // The settlement given back is kept for the record; the clawback record is left for the next one.
    expect(await redis.hget(s.block, 'priorSettlements')).toMatch(
      new RegExp(`^clawed-back \\d+ clawed back ${CREDIT}, restored \\d+, credited back \\d+$`),
    );
    expect(await redis.hgetall(s.money.blockClawbackCreditedBack(s.hash))).toEqual({
      [FINDER]: String(CREDIT),
    });
    expect(await redis.exists(s.money.blockClawback(s.hash))).toBe(0);
    const text = await reportText(s.keyPrefix);
    expect(text).toContain(`height 50  ${s.hash}  reward`);
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);

    // Settled again: the second clawback takes the credit once more, and it is the one a later restore gives back.
    expect(await settle(s, 'clawback')).toMatchObject({ applied: true, changeAtomic: -CREDIT });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(0n);
    await expect(settle(s, 'clawback')).rejects.toMatchObject({ code: 'BLOCK_SETTLED' });
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    expect(await settle(s, 'credit-back')).toMatchObject({ applied: true, changeAtomic: CREDIT });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(CREDIT);
    expect((await s.balances.getHistory(FINDER)).map((e) => [e.reason, e.amountAtomic])).toEqual([
      ['orphan-credit-back', CREDIT],
      ['orphan-clawback', -CREDIT],
      ['orphan-credit-back', CREDIT],
      ['orphan-clawback', -CREDIT],
      ['block-credit', CREDIT],
    ]);
    expect((await s.balances.getTotals()).adjustments).toBe(0n);
    await expectLedgerConsistent(redis, s.keyPrefix, [FINDER]);
  });

  it('--credit-back is refused while the main chain does not hold the block, even before the watch sees it', async () => {
    const s = await setup('credit-back-off-chain');
    await settle(s, 'clawback');
    s.chain.replaced = false;
    await s.unlocker().runOnce();
    s.chain.replaced = true; // no unlock run since: the record still says restored
    const modules = { redis, daemon: s.daemon };
    await expect(
      settleOrphanedBlock(s.keyPrefix, modules, {
        hash: s.hash,
        mode: 'credit-back',
        note: '',
        dryRun: false,
      }),
    ).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });
    expect((await s.balances.getBalance(FINDER)).balance).toBe(0n);
    s.chain.replaced = false;
    expect(
      await settleOrphanedBlock(s.keyPrefix, modules, {
        hash: s.hash,
        mode: 'credit-back',
        note: '',
        dryRun: false,
      }),
    ).toMatchObject({ applied: true, changeAtomic: CREDIT });
  });

  it('the leader publishes block-orphan-restored once per restore, with what the block was', async () => {
    const s = await setup('restored-event');
    await settle(s, 'clawback');
    const events = createPoolEventBus(() => undefined);
    const heard: PoolEventMap['block-orphan-restored'][] = [];
    events.subscribe('block-orphan-restored', (payload) => heard.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      { unlocker: s.unlocker(), payouts: undefined as never, events, logger: silentLogger },
    );
    await loop.unlockOnce();
    expect(heard).toEqual([]);
    s.chain.replaced = false;
    await loop.unlockOnce();
    await loop.unlockOnce();
    expect(heard).toEqual([
      {
        height: 50,
        hash: s.hash,
        rewardAtomic: BigInt(REWARD),
        outcome: 'clawed-back',
        timestampMs: expect.any(Number),
      },
    ]);
    // Replaced and restored again: told again (a new restore), the credit back owed again.
    s.chain.replaced = true;
    await loop.unlockOnce();
    s.chain.replaced = false;
    await loop.unlockOnce();
    expect(heard.map((e) => e.outcome)).toEqual(['clawed-back', 'clawed-back']);
  });
  it('the leader publishes block-orphan-restore-undone when a restored settled block is replaced again before a credit back, once', async () => {
    const s = await setup('restore-undone-event');
    await settle(s, 'clawback');
    const events = createPoolEventBus(() => undefined);
    const undone: PoolEventMap['block-orphan-restore-undone'][] = [];
    events.subscribe('block-orphan-restore-undone', (payload) => undone.push(payload));
    const restored: PoolEventMap['block-orphan-restored'][] = [];
    events.subscribe('block-orphan-restored', (payload) => restored.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      { unlocker: s.unlocker(), payouts: undefined as never, events, logger: silentLogger },
    );
    s.chain.replaced = false;
    await loop.unlockOnce();
    expect(restored.map((e) => e.outcome)).toEqual(['clawed-back']);
    expect(undone).toEqual([]);

    s.chain.replaced = true;
    await loop.unlockOnce();
    await loop.unlockOnce();
    expect(undone).toEqual([
      {
        height: 50,
        hash: s.hash,
        rewardAtomic: BigInt(REWARD),
        outcome: 'clawed-back',
        timestampMs: expect.any(Number),
      },
    ]);
    await expect(settle(s, 'credit-back')).rejects.toMatchObject({ code: 'BLOCK_NOT_RESTORED' });

    // Restored and replaced again: each undoing told once. Credited back and replaced again: no
    // undoing (block-orphaned-after-credit comes instead).
    s.chain.replaced = false;
    await loop.unlockOnce();
    s.chain.replaced = true;
    await loop.unlockOnce();
    expect(undone).toHaveLength(2);
    s.chain.replaced = false;
    await loop.unlockOnce();
    await settle(s, 'credit-back');
    s.chain.replaced = true;
    await loop.unlockOnce();
    expect(undone).toHaveLength(2);
  });

  it('an absorbed block restored and replaced again is told too (the loss stands again)', async () => {
    const s = await setup('restore-undone-absorbed');
    await settle(s, 'absorb');
    const heard: ReorphanedBlock[] = [];
    const listener = { onReorphaned: (block: ReorphanedBlock) => heard.push(block) };
    s.chain.replaced = false;
    await s.unlocker().runOnce(listener);
    s.chain.replaced = true;
    await s.unlocker().runOnce(listener);
    expect(heard).toEqual([{ hash: s.hash, height: 50, rewardAtomic: BigInt(REWARD), outcome: 'absorbed' }]);
  });
});
