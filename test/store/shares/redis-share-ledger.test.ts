import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { HashrateBatcher } from '../../../src/store/hashrate/hashrate-batcher.js';
import { HashrateBucketWriter } from '../../../src/store/hashrate/hashrate-buckets.js';
import { createHashrateKeys, HOUR_MS, MINUTE_MS } from '../../../src/store/hashrate/hashrate-keys.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import {
  RedisShareLedger,
  type RedisShareLedgerModules,
} from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import type { RedisShareLedgerOptions } from '../../../src/store/shares/share-ledger-options.js';
import { StoreError } from '../../../src/store/store-error.js';
import { DEFAULT_MAX_WORKERS_PER_MINER, DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  settlesWithin,
  silentLogger,
  uniquePrefix,
} from '../store-fixtures.js';

describe('RedisShareLedger on a real Redis', () => {
  let server: TestRedis;
  let redis: Redis;
  /** A second connection: reads what the ledger wrote, and pauses Redis writes. */
  let observer: Redis;

  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, silentLogger);
    observer = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await observer.connect();
  });

  afterAll(async () => {
    redis?.disconnect();
    observer?.disconnect();
    await server?.stop();
  });

  function newLedger(
    label: string,
    options: Partial<RedisShareLedgerOptions> = {},
    onBatchRecorded?: RedisShareLedgerModules['onBatchRecorded'],
  ) {
    const keyPrefix = uniquePrefix(label);
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix, ...options },
      { redis, logger: silentLogger, ...(onBatchRecorded ? { onBatchRecorded } : {}) },
    );
    return { ledger, keys: createShareKeys(keyPrefix), keyPrefix };
  }

  async function withWritesPaused<T>(body: () => Promise<T>): Promise<T> {
    await observer.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    try {
      return await body();
    } finally {
      await observer.call('CLIENT', 'UNPAUSE');
    }
  }

  it('makes a share visible only once its promise resolves', async () => {
    const { ledger, keys } = newLedger('visible');
    let recorded!: Promise<void>;
    await withWritesPaused(async () => {
      recorded = ledger.recordShare(makeShare());
      expect(await settlesWithin(recorded, 100)).toBe(false);
      expect(await observer.xlen(keys.shares)).toBe(0);
    });
    await recorded;
    expect(await observer.xlen(keys.shares)).toBe(1);
  });

  it('writes 1,000 concurrent shares as 1,000 entries in call order with exact bigint totals', async () => {
    const { ledger, keys } = newLedger('thousand');
    const big = 2 ** 50;
    const shares = Array.from({ length: 1000 }, (_, i) =>
      makeShare({
        address: ADDRESSES[i % 3]!,
        worker: `rig${i % 5}`,
        difficulty: big + i,
        height: i,
        timestampMs: 1_700_000_000_000 + i,
      }),
    );
    await Promise.all(shares.map((share) => ledger.recordShare(share)));

    const entries = await observer.xrange(keys.shares, '-', '+');
    expect(entries).toHaveLength(1000);
    expect(entries.map(([, fields]) => Number(fields[7]))).toEqual(shares.map((share) => share.height));
    expect(ledger.metrics().batchesWritten).toBe(4); // 1000 / maxBatchSize 256

    const expected = new Map<string, bigint>();
    for (const share of shares) {
      expected.set(share.address, (expected.get(share.address) ?? 0n) + BigInt(share.difficulty));
    }
    const contributions = await ledger.getRoundContributions();
    expect(contributions).toEqual(expected);
    // Each sum is far past 2^53: exact only because it travels as a string.
    expect(contributions.get(ADDRESSES[0])! > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);

    const summary = await ledger.reader.getCurrentRoundSummary();
    expect(summary).toEqual({
      startedAtMs: 1_700_000_000_000,
      totalDifficulty: [...expected.values()].reduce((a, b) => a + b, 0n),
      shareCount: 1000,
    });
    const miner = await observer.hgetall(keys.miner(ADDRESSES[1]));
    const minerShares = shares.filter((share) => share.address === ADDRESSES[1]);
    expect(miner).toEqual({
      sharesValid: String(minerShares.length),
      difficultyTotal: String(minerShares.reduce((sum, share) => sum + BigInt(share.difficulty), 0n)),
      lastShareMs: String(Math.max(...minerShares.map((share) => share.timestampMs))),
    });
    const worker = await observer.hgetall(keys.worker(ADDRESSES[0], 'rig0'));
    const workerShares = shares.filter((share) => share.address === ADDRESSES[0] && share.worker === 'rig0');
    expect(worker['sharesValid']).toBe(String(workerShares.length));
  });

  it('keeps solo shares out of the pool round but counts them for the miner', async () => {
    const { ledger, keys } = newLedger('solo');
    await Promise.all([
      ledger.recordShare(makeShare({ address: ADDRESSES[0], difficulty: 100 })),
      ledger.recordShare(makeShare({ address: ADDRESSES[1], difficulty: 200, solo: true })),
      ledger.recordShare(makeShare({ address: ADDRESSES[0], difficulty: 300, solo: true })),
    ]);
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[0], 100n]]));
    expect((await ledger.reader.getCurrentRoundSummary())?.shareCount).toBe(1);
    expect(await observer.hget(keys.miner(ADDRESSES[0]), 'difficultyTotal')).toBe('400');
    expect(await observer.hget(keys.miner(ADDRESSES[1]), 'sharesValid')).toBe('1');
    const entries = await observer.xrange(keys.shares, '-', '+');
    expect(entries.map(([, fields]) => fields[11])).toEqual(['0', '1', '1']);
  });

  it('credits stale-in-grace shares to the round and marks them in the stream', async () => {
    const { ledger, keys } = newLedger('stale');
    await ledger.recordShare(makeShare({ difficulty: 40, stale: true }));
    await ledger.recordShare(makeShare({ difficulty: 2 }));
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[0], 42n]]));
    const entries = await observer.xrange(keys.shares, '-', '+');
    expect(entries.map(([, fields]) => fields[13])).toEqual(['1', '0']);
  });

  it('refuses an invalid share alone, without failing its batch-mates', async () => {
    const { ledger, keys } = newLedger('invalid');
    const results = await Promise.allSettled([
      ledger.recordShare(makeShare({ difficulty: 1 })),
      ledger.recordShare(makeShare({ difficulty: 1.5 })),
      ledger.recordShare(makeShare({ address: 'bad:address' })),
      ledger.recordShare(makeShare({ difficulty: 2 })),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    for (const result of results) {
      if (result.status === 'rejected') expect((result.reason as StoreError).code).toBe('INVALID_RECORD');
    }
    expect(await observer.xlen(keys.shares)).toBe(2);
  });

  it('closes the round atomically when a block candidate is recorded', async () => {
    const { ledger, keys } = newLedger('close');
    await ledger.recordShare(makeShare({ address: ADDRESSES[0], difficulty: 1000, timestampMs: 1_000 }));
    await ledger.recordShare(makeShare({ address: ADDRESSES[1], difficulty: 3000, timestampMs: 2_000 }));
    const candidate = makeCandidate({
      height: 500,
      timestampMs: 5_000,
      share: makeShare({
        address: ADDRESSES[1],
        worker: 'big',
        difficulty: 7000,
        height: 500,
        timestampMs: 4_000,
      }),
    });
    const result = await ledger.writeBlockCandidate(candidate);
    expect(result.created).toBe(true);
    expect(result.status).toBe('pending');

    expect(await observer.exists(keys.roundCurrent)).toBe(0);
    expect(await ledger.getRoundContributions({ height: 500, hash: candidate.hash })).toEqual(
      new Map([
        [ADDRESSES[0], 1000n],
        [ADDRESSES[1], 10_000n],
      ]),
    );
    expect(await ledger.reader.getCurrentRoundSummary()).toEqual({
      startedAtMs: 5_000,
      totalDifficulty: 0n,
      shareCount: 0,
    });
    const stored = await ledger.getBlockCandidate(candidate.hash);
    expect(stored).toEqual({
      height: 500,
      hash: candidate.hash,
      prevHash: candidate.prevHash,
      networkDifficulty: 123_456_789_012_345_678_901n,
      finderAddress: ADDRESSES[1],
      finderWorker: 'big',
      shareEntryId: result.shareEntryId,
      shareDifficulty: 7000,
      solo: false,
      submitResult: 'accepted',
      submitError: null,
      blobHex: candidate.blobHex,
      refusalReason: null,
      timestampMs: 5_000,
      status: 'pending',
      round: { startedAtMs: 1_000, totalDifficulty: 11_000n, shareCount: 3 },
      window: null,
      unlockNote: null,
      offMainChain: false,
      orphanedAfterCredit: false,
    });
    // A pool block waits for the leader to fix its PPLNS window.
    expect(await observer.zscore(keys.blocksWindowPending, candidate.hash)).toBe('500');
    expect(await observer.zscore(keys.blockCandidates, candidate.hash)).toBe('500');
    expect(await observer.hget(keys.worker(ADDRESSES[1], 'big'), 'difficultyTotal')).toBe('7000');

    // The solving share is in the stream, where PPLNS starts.
    const window = await ledger.readSharesBackFrom(result.shareEntryId, 1_000_000n);
    expect(window.shares.map((share) => share.difficulty)).toEqual([7000, 3000, 1000]);

    // The next share opens the next round.
    await ledger.recordShare(makeShare({ address: ADDRESSES[2], difficulty: 5 }));
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[2], 5n]]));
  });

  it('does not trim the stream while a pool block waits for its window; solo and refused blocks never hold it', async () => {
    // Approximate trimming drops whole stream nodes (100 entries by default).
    const { ledger, keys } = newLedger('trim-hold', { streamMaxLength: 10, maxBatchSize: 50 });
    const record = (count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => ledger.recordShare(makeShare({ height: i }))));
    await ledger.writeBlockCandidate(
      makeCandidate({ hash: blockHash(0x50), share: makeShare({ solo: true }) }),
    );
    await ledger.writeBlockCandidate(makeCandidate({ hash: blockHash(0x51), submitResult: 'rejected' }));
    await record(300);
    expect(await observer.zcard(keys.blocksWindowPending)).toBe(0);
    expect(await observer.xlen(keys.shares)).toBeLessThan(200);

    await ledger.writeBlockCandidate(makeCandidate({ hash: blockHash(0x52), height: 7 }));
    await record(400);
    expect(await observer.zrange(keys.blocksWindowPending, 0, -1, 'WITHSCORES')).toEqual([
      blockHash(0x52),
      '7',
    ]);
    const held = await observer.xlen(keys.shares);
    expect(held).toBeGreaterThan(400);

    // What fix_block_window does once the window is stored: the next write trims again.
    await observer.zrem(keys.blocksWindowPending, blockHash(0x52));
    await record(1);
    expect(await observer.xlen(keys.shares)).toBeLessThan(200);
  });

  it('records the same block hash once: a retried write closes no second round', async () => {
    const { ledger, keys } = newLedger('idempotent');
    await ledger.recordShare(makeShare({ difficulty: 10 }));
    const candidate = makeCandidate();
    const first = await ledger.writeBlockCandidate(candidate);
    await ledger.recordShare(makeShare({ address: ADDRESSES[2], difficulty: 3 }));
    const second = await ledger.writeBlockCandidate(candidate);
    const third = await ledger.writeBlockCandidate({
      ...candidate,
      submitResult: 'error',
      submitError: 'timeout',
    });

    expect(first.created).toBe(true);
    expect(second).toEqual({ created: false, shareEntryId: first.shareEntryId, status: 'pending' });
    expect(third.created).toBe(false);
    expect(await observer.xlen(keys.shares)).toBe(3);
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[2], 3n]]));
    expect(await ledger.getRoundContributions({ height: candidate.height, hash: candidate.hash })).toEqual(
      new Map([[ADDRESSES[0], 7010n]]),
    );
    expect((await ledger.getBlockCandidate(candidate.hash))?.submitResult).toBe('accepted');
  });

  it('hands a block-solving share to onBatchRecorded once the candidate is created, refused or not', async () => {
    const recorded: AcceptedShare[] = [];
    const { ledger } = newLedger('candidate-hook', {}, (shares) => recorded.push(...shares));
    const accepted = makeCandidate();
    await ledger.writeBlockCandidate(accepted);
    expect(recorded).toEqual([accepted.share]);
    // A retried write of the same block changes nothing, so counts nothing.
    await ledger.recordBlockCandidate({ ...accepted, submitResult: 'error', submitError: 'timeout' });
    expect(recorded).toEqual([accepted.share]);
    // A block the daemon refused is no candidate, but its share was work like any other.
    const refused = makeCandidate({ hash: blockHash(0xbad), submitResult: 'rejected' });
    await ledger.writeBlockCandidate(refused);
    expect(recorded).toEqual([accepted.share, refused.share]);
  });

  it('a block-solving share counts once in the miner’s hashrate buckets, as stratum wires them', async () => {
    const { ledger, keyPrefix } = newLedger('candidate-hashrate', {}, (shares) => batcher.add(shares));
    const writer = new HashrateBucketWriter(
      { keyPrefix, maxWorkersPerMiner: DEFAULT_MAX_WORKERS_PER_MINER },
      { redis },
    );
    const batcher = new HashrateBatcher(
      { flushIntervalMs: 60_000 },
      { record: (shares) => writer.record(shares), onError: () => undefined },
    );
    // Now: buckets of shares older than their retention expire at once.
    const timestampMs = Date.now();
    await ledger.recordShare(makeShare({ difficulty: 50, timestampMs }));
    const candidate = makeCandidate({ share: makeShare({ difficulty: 7000, timestampMs }) });
    await ledger.writeBlockCandidate(candidate);
    await ledger.writeBlockCandidate(candidate);
    await batcher.stop();
    const bucket = createHashrateKeys(keyPrefix).minerMinutes(
      Math.floor(timestampMs / HOUR_MS),
      ADDRESSES[0],
    );
    const minute = String(Math.floor(timestampMs / MINUTE_MS) % 60);
    expect(await observer.hget(bucket, minute)).toBe('7050');
  });

  it('applies shares queued before a candidate to the round that candidate closes', async () => {
    const { ledger } = newLedger('ordering', { maxBatchDelayMs: 60_000 });
    const queued = [1, 2, 3].map((difficulty) =>
      ledger.recordShare(makeShare({ address: ADDRESSES[1], difficulty })),
    );
    const candidate = makeCandidate();
    await ledger.recordBlockCandidate(candidate);
    await Promise.all(queued);
    expect(await ledger.getRoundContributions({ height: candidate.height, hash: candidate.hash })).toEqual(
      new Map([
        [ADDRESSES[1], 6n],
        [ADDRESSES[0], 7000n],
      ]),
    );
    expect(await ledger.getRoundContributions()).toEqual(new Map());
  });

  it('records a solo candidate without closing the pool round', async () => {
    const { ledger, keys } = newLedger('solo-block');
    await ledger.recordShare(makeShare({ address: ADDRESSES[0], difficulty: 50 }));
    const candidate = makeCandidate({
      share: makeShare({ address: ADDRESSES[1], solo: true, difficulty: 900 }),
    });
    expect((await ledger.writeBlockCandidate(candidate)).created).toBe(true);
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[0], 50n]]));
    const stored = await ledger.getBlockCandidate(candidate.hash);
    expect(stored?.solo).toBe(true);
    expect(stored?.round).toBeNull();
    expect(stored?.status).toBe('pending');
    expect(await observer.exists(keys.closedRound(candidate.height, candidate.hash))).toBe(0);
    expect(await observer.zscore(keys.blockCandidates, candidate.hash)).toBe(String(candidate.height));
  });

  it('keeps a rejected block out of the candidates and its round open', async () => {
    const { ledger, keys } = newLedger('rejected');
    await ledger.recordShare(makeShare({ difficulty: 50 }));
    const candidate = makeCandidate({ submitResult: 'rejected', submitError: 'Block not accepted' });
    const result = await ledger.writeBlockCandidate(candidate);
    expect(result.status).toBe('rejected');
    // The solving share is still a valid share of the open round.
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[0], 7050n]]));
    expect(await observer.zscore(keys.blocksRejected, candidate.hash)).toBe(String(candidate.height));
    expect(await ledger.listBlockCandidates({ offset: 0, limit: 10 })).toEqual([]);
    const stored = await ledger.getBlockCandidate(candidate.hash);
    expect(stored?.submitError).toBe('Block not accepted');
    expect(stored?.round).toBeNull();
  });

  it('keeps the blob of a refused block and adds the refusal reason to its record only', async () => {
    const { ledger, keys } = newLedger('refusal');
    const refused = makeCandidate({
      hash: blockHash(0x7e),
      submitResult: 'rejected',
      submitError: 'rpc -7: Block not accepted',
      blobHex: '09009df2912eb208',
    });
    const accepted = makeCandidate({ hash: blockHash(0xac) });
    await ledger.recordBlockCandidate(refused);
    await ledger.recordBlockCandidate(accepted);
    expect(await ledger.getBlockCandidate(refused.hash)).toMatchObject({
      blobHex: '09009df2912eb208',
      refusalReason: null,
    });

    expect(await ledger.recordBlockRefusal(refused, 'pow-disagreement')).toBe('recorded');
    // An accepted block (a second, refused submit of it) and an unknown hash are left alone.
    expect(await ledger.recordBlockRefusal(accepted, 'already-on-chain')).toBe('unchanged');
    expect(await ledger.recordBlockRefusal(makeCandidate({ hash: blockHash(0x99) }), 'unknown')).toBe(
      'unchanged',
    );
    expect(await ledger.getBlockCandidate(refused.hash)).toMatchObject({
      status: 'rejected',
      blobHex: '09009df2912eb208',
      refusalReason: 'pow-disagreement',
    });
    expect((await ledger.getBlockCandidate(accepted.hash))?.refusalReason).toBeNull();
    expect(await ledger.getBlockCandidate(blockHash(0x99))).toBeNull();
    await expect(ledger.recordBlockRefusal(refused, 'bad' as unknown as 'unknown')).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    });
    await expect(ledger.writeBlockCandidate({ ...refused, blobHex: 'xyz' })).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    });
    await observer.hset(keys.block(refused.hash), 'refusalReason', 'nonsense');
    await expect(ledger.getBlockCandidate(refused.hash)).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
  });

  it('promotes a refused block found on the chain after all, once, to what an accepted block gets: pending, its round closed, its window waiting', async () => {
    const nowMs = 1_700_000_200_000;
    const keyPrefix = uniquePrefix('promote');
    const ledger = new RedisShareLedger(
      { ...DEFAULT_STORE_OPTIONS, keyPrefix },
      { redis, logger: silentLogger, clock: () => nowMs },
    );
    const keys = createShareKeys(keyPrefix);
    await ledger.recordShare(makeShare({ address: ADDRESSES[1], difficulty: 800, timestampMs: 1_000 }));
    const refused = makeCandidate({
      hash: blockHash(0xd0b),
      submitResult: 'rejected',
      submitError: 'rpc -7: Block not accepted',
      share: makeShare({ address: ADDRESSES[0], difficulty: 300, timestampMs: 2_000 }),
    });
    await ledger.writeBlockCandidate(refused);
    expect((await ledger.getBlockCandidate(refused.hash))?.status).toBe('rejected');

    expect(await ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    expect(await ledger.getBlockCandidate(refused.hash)).toMatchObject({
      status: 'pending',
      submitResult: 'rejected',
      refusalReason: 'already-on-chain',
      round: { startedAtMs: 1_000, totalDifficulty: 1_100n, shareCount: 2 },
    });
    expect((await ledger.listBlockCandidates({ offset: 0, limit: 10 })).map((b) => b.hash)).toEqual([
      refused.hash,
    ]);
    expect(await observer.zscore(keys.blocksRejected, refused.hash)).toBeNull();
    expect(await observer.zscore(keys.blocksWindowPending, refused.hash)).toBe(String(refused.height));
    // The round it ended is closed (PROP's weights) and a new one starts now.
    expect(await ledger.getRoundContributions({ height: refused.height, hash: refused.hash })).toEqual(
      new Map([
        [ADDRESSES[1], 800n],
        [ADDRESSES[0], 300n],
      ]),
    );
    expect(await ledger.getRoundContributions()).toEqual(new Map());
    expect(await ledger.reader.getCurrentRoundSummary()).toEqual({
      startedAtMs: nowMs,
      totalDifficulty: 0n,
      shareCount: 0,
    });

    // Again (a retry, a second diagnosis): nothing changes, the new round stays open.
    await ledger.recordShare(makeShare({ address: ADDRESSES[2], difficulty: 50 }));
    const before = await observer.hgetall(keys.block(refused.hash));
    expect(await ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('unchanged');
    expect(await observer.hgetall(keys.block(refused.hash))).toEqual(before);
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[2], 50n]]));
    expect(await observer.zcard(keys.blocksWindowPending)).toBe(1);
  });

  it('promotes a refused solo block found on the chain without touching the pool round', async () => {
    const { ledger, keys } = newLedger('promote-solo');
    await ledger.recordShare(makeShare({ address: ADDRESSES[1], difficulty: 800 }));
    const refused = makeCandidate({
      hash: blockHash(0x501),
      submitResult: 'rejected',
      share: makeShare({ address: ADDRESSES[0], solo: true }),
    });
    await ledger.writeBlockCandidate(refused);
    expect(await ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    expect(await ledger.getBlockCandidate(refused.hash)).toMatchObject({ status: 'pending', round: null });
    expect(await observer.zscore(keys.blockCandidates, refused.hash)).toBe(String(refused.height));
    expect(await observer.zscore(keys.blocksRejected, refused.hash)).toBeNull();
    expect(await observer.zcard(keys.blocksWindowPending)).toBe(0);
    expect(await observer.exists(keys.closedRound(refused.height, refused.hash))).toBe(0);
    expect(await ledger.getRoundContributions()).toEqual(new Map([[ADDRESSES[1], 800n]]));
  });

  it('lists candidates highest first, in pages', async () => {
    const { ledger } = newLedger('list');
    for (const height of [10, 30, 20]) {
      await ledger.recordBlockCandidate(makeCandidate({ height, hash: blockHash(height) }));
    }
    const firstPage = await ledger.listBlockCandidates({ offset: 0, limit: 2 });
    expect(firstPage.map((block) => block.height)).toEqual([30, 20]);
    const secondPage = await ledger.listBlockCandidates({ offset: 2, limit: 2 });
    expect(secondPage.map((block) => block.height)).toEqual([10]);
    expect(await ledger.getBlockCandidate(blockHash(99))).toBeNull();
    await expect(ledger.listBlockCandidates({ offset: 0, limit: 100_000 })).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    });
  });

  it('refuses shares beyond the backlog bound while Redis does not answer', async () => {
    const { ledger, keys } = newLedger('backlog', { maxPendingShares: 10, maxBatchSize: 4 });
    let accepted: Promise<void>[] = [];
    await withWritesPaused(async () => {
      const results = Array.from({ length: 15 }, (_, i) => ledger.recordShare(makeShare({ height: i })));
      accepted = results.slice(0, 10);
      const refused = await Promise.allSettled(results.slice(10));
      for (const result of refused) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as StoreError;
        expect(reason).toBeInstanceOf(StoreError);
        expect(reason.code).toBe('STORE_BACKLOG_FULL');
      }
      const metrics = ledger.metrics();
      expect(metrics.inFlightShares + metrics.queuedShares).toBe(10);
      expect(await settlesWithin(Promise.race(accepted), 50)).toBe(false);
    });
    // The ten accepted ones are written once Redis takes writes again.
    await Promise.all(accepted);
    expect(await observer.xlen(keys.shares)).toBe(10);
    expect(ledger.metrics().inFlightShares).toBe(0);
    await expect(ledger.recordShare(makeShare())).resolves.toBeUndefined();
  });

  it('close() flushes queued shares, waits for them, then refuses', async () => {
    const { ledger, keys } = newLedger('close-flush', { maxBatchDelayMs: 60_000 });
    const recorded = Array.from({ length: 5 }, (_, i) => ledger.recordShare(makeShare({ height: i })));
    expect(await observer.xlen(keys.shares)).toBe(0);
    await ledger.close();
    expect(await observer.xlen(keys.shares)).toBe(5);
    await Promise.all(recorded);
    await expect(ledger.recordShare(makeShare())).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(ledger.recordBlockCandidate(makeCandidate())).rejects.toMatchObject({
      code: 'STORE_CLOSED',
    });
    await ledger.close(); // a second close is harmless
  });
});
