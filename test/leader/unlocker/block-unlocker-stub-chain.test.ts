import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { FEE, REWARD, stubChain, unlockerOn } from './unlocker-kit.js';

const [A, B, C] = ADDRESSES;

/** The unlocker against a stub chain (any height, any depth) on a real Redis. */
describe('BlockUnlocker against a stub chain', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  function setup(label: string) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    return { keyPrefix, ledger, keys: createShareKeys(keyPrefix), money: createPaymentKeys(keyPrefix) };
  }

  it('decides the oldest pending block even when 2,000 newer ones wait behind it', async () => {
    const { keyPrefix, ledger } = setup('backlog');
    // confirmDepth 10,000 is within the schema's range; a pool finding a fifth of the blocks then
    // has about 2,000 blocks pending at any time.
    const confirmDepth = 10_000;
    for (let height = 1; height <= 2_001; height++) {
      await ledger.writeBlockCandidate(
        makeCandidate({ height, hash: blockHash(height), share: makeShare({ solo: true }) }),
      );
    }
    // Only height 1 is confirmDepth deep; every other block is on the chain, shallower.
    const daemon = stubChain(1 + confirmDepth, blockHash, REWARD);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth }, { daemon, logger: silentLogger });

    const summary = await unlocker.runOnce();

    expect(summary.decisions.find((d) => d.hash === blockHash(1))).toMatchObject({ outcome: 'confirmed' });
    expect((await ledger.getBlockCandidate(blockHash(1)))?.status).toBe('confirmed');
    const soloFee = (BigInt(REWARD) * BigInt(FEE.solo.poolFeeBasisPoints)) / 10_000n;
    const balances = new RedisBalances({ keyPrefix }, { redis });
    expect((await balances.getBalance(A)).credited).toBe(BigInt(REWARD) - soloFee);
  }, 60_000);

  it('watches credited blocks until confirmDepth + reorgWatchBlocks deep, one block-list call per range', async () => {
    const { keyPrefix, ledger, money } = setup('reorg-watch');
    const heights = [100, 110, 125];
    for (const height of heights) {
      const share = makeShare({ solo: true });
      await ledger.writeBlockCandidate(makeCandidate({ height, hash: blockHash(height), share }));
    }
    // Tip 135: all three 10 deep or more. Then a 36-block reorg replaces every height from 100 up.
    let replacedFrom = Number.POSITIVE_INFINITY;
    const hashAt = (height: number) =>
      height >= replacedFrom ? blockHash(0x10_000 + height) : blockHash(height);
    const chain = stubChain(135, hashAt, REWARD);
    const listCalls: number[] = [];
    const daemon = {
      ...chain,
      getBlocksList: async (height: number) => {
        listCalls.push(height);
        return chain.getBlocksList(height);
      },
    };
    const options = { confirmDepth: 10, reorgWatchBlocks: 20 };
    const unlocker = unlockerOn(redis, keyPrefix, options, { daemon, logger: silentLogger });
    const confirmed = await unlocker.runOnce();
    expect(confirmed.decisions.map((d) => d.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed']);

    replacedFrom = 100;
    listCalls.length = 0;
    const summary = await unlocker.runOnce();
    // Watched while at most 30 deep: 125 and 110 (one call lists 125 down to 96); 100 is 35 deep.
    expect(summary.decisions).toEqual([
      expect.objectContaining({ hash: blockHash(125), outcome: 'orphaned-after-credit' }),
      expect.objectContaining({ hash: blockHash(110), outcome: 'orphaned-after-credit' }),
    ]);
    expect(listCalls).toEqual([125]);
    expect(await redis.zrange(money.blocksOrphanedAfterCredit, 0, -1)).toEqual([
      blockHash(110),
      blockHash(125),
    ]);
    expect(await ledger.getBlockCandidate(blockHash(100))).toMatchObject({ orphanedAfterCredit: false });
    expect(await ledger.getBlockCandidate(blockHash(110))).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: true,
    });
    expect(await redis.hget(money.totals, 'rewards')).toBe(String(3 * REWARD));

    // Flagged blocks are still read (a later reorg may restore them) but never flagged twice.
    listCalls.length = 0;
    expect((await unlocker.runOnce()).decisions).toEqual([]);
    expect(listCalls).toEqual([125]);
    expect(await redis.zcard(money.blocksOrphanedAfterCredit)).toBe(2);
  });

  it('a stale leader does not flag a credited block a deep reorg replaced', async () => {
    const { keyPrefix, ledger, money } = setup('reorg-watch-fenced');
    const hash = blockHash(10);
    await ledger.writeBlockCandidate(makeCandidate({ height: 10, hash, share: makeShare({ solo: true }) }));
    let replaced = false;
    const daemon = stubChain(20, () => (replaced ? blockHash(0xf00) : hash), REWARD);
    await redis.set(money.leaderToken, 'token-1');
    const leader = (token: string) =>
      unlockerOn(
        redis,
        keyPrefix,
        { confirmDepth: 5 },
        { daemon, logger: silentLogger, fencingToken: () => token },
      );
    expect((await leader('token-1').runOnce()).decisions).toEqual([
      expect.objectContaining({ outcome: 'confirmed' }),
    ]);
    replaced = true;
    await redis.set(money.leaderToken, 'token-2');
    await expect(leader('token-1').runOnce()).rejects.toMatchObject({ code: 'FENCED' });
    expect(await ledger.getBlockCandidate(hash)).toMatchObject({ orphanedAfterCredit: false });
    expect(await redis.zcard(money.blocksOrphanedAfterCredit)).toBe(0);
    expect((await leader('token-2').runOnce()).decisions).toEqual([
      expect.objectContaining({ hash, outcome: 'orphaned-after-credit' }),
    ]);
  });

  it('a failing reorg watch leaves the run’s decisions standing and tries again next run', async () => {
    const { keyPrefix, ledger } = setup('reorg-watch-fails');
    await ledger.writeBlockCandidate(
      makeCandidate({ height: 10, hash: blockHash(10), share: makeShare({ solo: true }) }),
    );
    let replaced = false;
    const chain = stubChain(20, (height) => (replaced ? blockHash(0xf00) : blockHash(height)), REWARD);
    let listFails = true;
    const daemon = {
      ...chain,
      getBlocksList: async (height: number) => {
        if (listFails) throw new Error('daemon went away');
        return chain.getBlocksList(height);
      },
    };
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth: 5 }, { daemon, logger: silentLogger });
    expect((await unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    replaced = true;
    listFails = false;
    expect((await unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: blockHash(10), outcome: 'orphaned-after-credit' }),
    ]);
  });

  it('credits nobody while one miner’s balance record is corrupt, then every miner once', async () => {
    const { keyPrefix, ledger, money } = setup('corrupt-balance');
    await ledger.recordShare(makeShare({ address: C, difficulty: 500 }));
    await ledger.recordShare(makeShare({ address: B, difficulty: 500 }));
    const hash = blockHash(0xc0);
    await ledger.writeBlockCandidate(
      makeCandidate({
        hash,
        height: 10,
        networkDifficulty: 1000n,
        share: makeShare({ address: A, difficulty: 500 }),
      }),
    );
    // C's balance is not a number: credit_block's HINCRBY fails on it, after A's and B's (credits
    // are written in address order) unless it checks first.
    await redis.hset(money.balance(C), 'balance', 'not-a-number');
    const daemon = stubChain(20, () => hash, REWARD);
    const unlocker = unlockerOn(redis, keyPrefix, { confirmDepth: 5 }, { daemon, logger: silentLogger });
    const credited = async (address: string) => (await redis.hget(money.balance(address), 'credited')) ?? '0';

    for (let run = 0; run < 2; run++) {
      const summary = await unlocker.runOnce();
      expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'error' })]);
      expect([await credited(A), await credited(B)]).toEqual(['0', '0']);
      expect(await redis.hget(money.totals, 'rewards')).toBeNull();
    }

    await redis.hset(money.balance(C), 'balance', '0');
    expect((await unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    // 1% pool fee of 90,000,000 leaves 89,100,000, a third each.
    expect([await credited(A), await credited(B), await credited(C)]).toEqual([
      '29700000',
      '29700000',
      '29700000',
    ]);
  });

  it('PROP: merges an orphaned round into the open one only once, after its corrupt summary is repaired', async () => {
    const { keyPrefix, ledger, keys } = setup('orphan-corrupt');
    await ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
    const hash = blockHash(0x0f);
    await ledger.writeBlockCandidate(
      makeCandidate({ hash, height: 10, share: makeShare({ address: A, difficulty: 200 }) }),
    );
    // The open round's total is not a number: orphan_block's HINCRBY on it fails after it has
    // added the first miner's difficulty to the open round, unless it checks first.
    await redis.hset(keys.roundCurrentMeta, 'totalDifficulty', 'not-a-number');
    const daemon = stubChain(20, () => blockHash(0xbad), REWARD);
    const unlocker = unlockerOn(
      redis,
      keyPrefix,
      { scheme: 'prop', confirmDepth: 5 },
      { daemon, logger: silentLogger },
    );

    for (let run = 0; run < 2; run++) {
      const summary = await unlocker.runOnce();
      expect(summary.decisions).toEqual([expect.objectContaining({ hash, outcome: 'error' })]);
      expect(await ledger.getRoundContributions()).toEqual(new Map());
    }

    await redis.hset(keys.roundCurrentMeta, 'totalDifficulty', '0');
    expect((await unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'orphaned' })]);
    expect(await ledger.getRoundContributions()).toEqual(
      new Map([
        [A, 200n],
        [B, 800n],
      ]),
    );
  });
});
