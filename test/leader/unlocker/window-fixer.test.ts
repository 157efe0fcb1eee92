import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowFixer } from '../../../src/leader/unlocker/window-fixer.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';

const [A, B, C] = ADDRESSES;

describe('WindowFixer on a real Redis', () => {
  let server: TestRedis;
  let redis: Redis;
  /** A second connection: another leader process. */
  let other: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    [redis, other] = await Promise.all([
      createRedisClient({ url: server.url }, silentLogger),
      createRedisClient({ url: server.url }, silentLogger),
    ]);
  });

  afterAll(async () => {
    redis?.disconnect();
    other?.disconnect();
    await server?.stop();
  });

  /** C 5000, B 700, A 900, then A's block share of 300 at network difficulty 1000 (window 2000). */
  async function foundBlock(label: string, hash = blockHash(0xf1)) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger },
    );
    await ledger.recordShare(makeShare({ address: C, difficulty: 5000 }));
    await ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
    await ledger.recordShare(makeShare({ address: A, difficulty: 900 }));
    await ledger.writeBlockCandidate(
      makeCandidate({
        hash,
        height: 10,
        networkDifficulty: 1000n,
        share: makeShare({ address: A, difficulty: 300 }),
      }),
    );
    return { keyPrefix, ledger, keys: createShareKeys(keyPrefix), hash };
  }

  function fixerOn(client: Redis, keyPrefix: string, fencingToken?: () => string | null) {
    const ledger = new UnlockerStore({ keyPrefix }, { redis: client });
    return new WindowFixer(
      { pplnsWindowFactor: 2 },
      { ledger, logger: silentLogger, ...(fencingToken ? { fencingToken } : {}) },
    );
  }

  it('fixes a found block’s window once: two fixers in two processes, one result', async () => {
    const s = await foundBlock('fix-twice');
    const [first, second] = await Promise.all([
      fixerOn(redis, s.keyPrefix).fixPending(),
      fixerOn(other, s.keyPrefix).fixPending(),
    ]);
    const outcomes = [...first.fixes, ...second.fixes].map((fix) => fix.outcome);
    expect(outcomes.filter((outcome) => outcome === 'fixed')).toHaveLength(1);
    expect(outcomes.every((outcome) => outcome === 'fixed' || outcome === 'already-fixed')).toBe(true);

    // Newest first: A 300, A 900, B 700, then C with the 100 that still fits.
    expect(await s.ledger.reader.getBlockWindow(s.hash)).toEqual(
      new Map([
        [A, 1200n],
        [B, 700n],
        [C, 100n],
      ]),
    );
    const fixedAtMs = (await s.ledger.getBlockCandidate(s.hash))?.window?.fixedAtMs;
    expect((await s.ledger.getBlockCandidate(s.hash))?.window).toEqual({
      windowDifficulty: 2000n,
      countedDifficulty: 2000n,
      shareCount: 4,
      endReason: 'filled',
      fixedAtMs: expect.any(Number),
    });
    expect(await redis.zcard(s.keys.blocksWindowPending)).toBe(0);
    // A later run has nothing to do and changes nothing.
    expect(await fixerOn(redis, s.keyPrefix).fixPending()).toEqual({ skipped: null, fixes: [] });
    expect((await s.ledger.getBlockCandidate(s.hash))?.window?.fixedAtMs).toBe(fixedAtMs);
  });

  it('a fixer that is not the leader writes nothing', async () => {
    const s = await foundBlock('fix-fenced');
    expect(await fixerOn(redis, s.keyPrefix, () => null).fixPending()).toEqual({
      skipped: 'not-leader',
      fixes: [],
    });
    await redis.set(createPaymentKeys(s.keyPrefix).leaderToken, 'token-2');
    await expect(fixerOn(redis, s.keyPrefix, () => 'token-1').fixPending()).rejects.toMatchObject({
      code: 'FENCED',
    });
    expect(await redis.exists(s.keys.blockWindow(s.hash))).toBe(0);
    expect((await s.ledger.getBlockCandidate(s.hash))?.window).toBeNull();
    expect(await redis.zscore(s.keys.blocksWindowPending, s.hash)).toBe('10');

    const leader = await fixerOn(redis, s.keyPrefix, () => 'token-2').fixPending();
    expect(leader.fixes).toEqual([expect.objectContaining({ hash: s.hash, outcome: 'fixed' })]);
  });

  it('records a window the stream could not fill, and fixes nothing for a block already decided', async () => {
    const s = await foundBlock('fix-young');
    const young = makeCandidate({
      hash: blockHash(0xf2),
      height: 11,
      networkDifficulty: 1_000_000n,
      share: makeShare({ address: B, difficulty: 50 }),
    });
    await s.ledger.writeBlockCandidate(young);
    const store = new UnlockerStore({ keyPrefix: s.keyPrefix }, { redis });
    // An orphaned block leaves the waiting set with its decision: it never holds the stream.
    await store.orphanBlock({
      hash: s.hash,
      height: 10,
      mergeRound: false,
      reason: 'test',
      observedHash: '',
    });
    expect(await redis.zrange(s.keys.blocksWindowPending, 0, -1)).toEqual([young.hash]);

    const run = await fixerOn(redis, s.keyPrefix).fixPending();
    expect(run.fixes).toEqual([expect.objectContaining({ hash: young.hash, outcome: 'fixed' })]);
    expect((await s.ledger.getBlockCandidate(young.hash))?.window).toMatchObject({
      windowDifficulty: 2_000_000n,
      countedDifficulty: 6950n,
      shareCount: 5,
      endReason: 'stream-start',
    });
    expect((await s.ledger.getBlockCandidate(s.hash))?.window).toBeNull();
    // The credit deletes the weights with the block's other working keys (the credits are the record).
    await store.creditBlock({
      hash: young.hash,
      height: 11,
      rewardAtomic: 100n,
      poolFeeAtomic: 0n,
      poolFeeKeptAtomic: 0n,
      finderBonusAtomic: 0n,
      scheme: 'pplns',
      depth: 60,
      credits: [{ address: B, amountAtomic: 100n, reason: 'block-credit' }],
    });
    expect(await redis.exists(s.keys.blockWindow(young.hash))).toBe(0);
  });
});
