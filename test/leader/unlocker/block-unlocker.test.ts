import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChainBlock } from '../../../src/devnet/chain/chain-state.js';
import type { Devnet } from '../../../src/devnet/devnet.js';
import { LeaderLoop } from '../../../src/leader/leader-loop.js';
import type { AcceptedShare } from '../../../src/model/share-ledger.js';
import { createPoolEventBus, type PoolEventMap } from '../../../src/pool/events.js';
import { pplnsSplit } from '../../../src/pool/schemes/pplns.js';
import { propSplit } from '../../../src/pool/schemes/prop.js';
import { soloSplit } from '../../../src/pool/schemes/solo.js';
import type { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { RpcError } from '../../../src/rpc/rpc-error.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { createShareKeys } from '../../../src/store/shares/share-keys.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from '../payouts/money-invariants.js';
import { type DevnetUnlockerEnv, FEE, startDevnetUnlockerEnv, unlockerOn } from './unlocker-kit.js';

const [A, B, C] = ADDRESSES;

/** Records `count` copies of `share` through the ledger's batches. */
async function recordMany(ledger: RedisShareLedger, count: number, share: AcceptedShare): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => ledger.recordShare(share)));
}

describe('BlockUnlocker against the devnet daemon', () => {
  let env: DevnetUnlockerEnv | undefined;
  let redis: Redis;
  let devnet: Devnet;
  let daemon: DaemonClient;

  beforeAll(async () => {
    env = await startDevnetUnlockerEnv();
    ({ redis, devnet, daemon } = env);
  });

  afterAll(async () => {
    await env?.stop();
  });

  function setup(
    label: string,
    scheme: 'pplns' | 'prop' | 'solo' = 'pplns',
    ledgerOptions: { streamMaxLength?: number } = {},
  ) {
    const keyPrefix = uniquePrefix(label);
    return {
      keyPrefix,
      keys: createShareKeys(keyPrefix),
      ledger: new RedisShareLedger(
        { ...DEFAULT_STORE_OPTIONS, keyPrefix, ...ledgerOptions },
        { redis, logger: silentLogger },
      ),
      unlocker: unlockerOn(redis, keyPrefix, { scheme, confirmDepth: 5 }, { daemon, logger: silentLogger }),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  /** Mines a devnet block and records it as the pool's candidate, solved by `share`. */
  async function findBlock(s: ReturnType<typeof setup>, share: AcceptedShare): Promise<ChainBlock> {
    const [block] = devnet.control.mineBlocks(1);
    await s.ledger.writeBlockCandidate(
      makeCandidate({ hash: block!.id, height: block!.height, networkDifficulty: 1000n, share }),
    );
    return block!;
  }

  /** C 5000, B 700, A 900, then a block A's share of 300 found at network difficulty 1000. */
  async function findPplnsBlock(s: ReturnType<typeof setup>): Promise<ChainBlock> {
    await s.ledger.recordShare(makeShare({ address: C, difficulty: 5000 }));
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
    await s.ledger.recordShare(makeShare({ address: A, difficulty: 900 }));
    return findBlock(s, makeShare({ address: A, difficulty: 300 }));
  }

  /** findPplnsBlock's split. Newest first: A 300 (the block's share), A 900, B 700, C 100 of 5000 (window 2000). */
  function pplnsSplitOf(block: ChainBlock) {
    return pplnsSplit({
      reward: block.rewardAtomic,
      sharesNewestFirst: [
        { address: A, difficulty: 300n, timestampMs: 0 },
        { address: A, difficulty: 900n, timestampMs: 0 },
        { address: B, difficulty: 700n, timestampMs: 0 },
        { address: C, difficulty: 5000n, timestampMs: 0 },
      ],
      windowDifficulty: 2000n,
      finder: A,
      fee: FEE.pool,
    });
  }

  it('credits a confirmed block exactly per PPLNS, once, with the reward from the header', async () => {
    const s = setup('pplns');
    const block = await findPplnsBlock(s);
    const shallow = await s.unlocker.runOnce();
    expect(shallow.decisions).toEqual([expect.objectContaining({ hash: block.id, outcome: 'pending' })]);
    devnet.control.mineBlocks(5);
    const confirmed = await s.unlocker.runOnce();
    expect(confirmed.decisions).toEqual([
      expect.objectContaining({ outcome: 'confirmed', rewardAtomic: block.rewardAtomic }),
    ]);
    const expected = pplnsSplitOf(block);
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).balance).toBe(expected.credits.get(address) ?? 0n);
    }
    const totals = await s.balances.getTotals();
    expect(totals.rewards).toBe(block.rewardAtomic);
    expect(totals.poolFees).toBe(expected.poolFee);
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('confirmed');
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('orphans a candidate only once another block at its height is confirmDepth deep; PROP merges its round', async () => {
    const s = setup('reorg', 'prop');
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
    const block = await findBlock(s, makeShare({ address: A }));
    devnet.control.reorg(1, { replacementBlocks: 2 });
    // Another hash at the height, 1 block deep: a short reorg may still bring the block back.
    const shallow = await s.unlocker.runOnce();
    expect(shallow.decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'not-on-main-chain' }),
    ]);
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('pending');
    expect((await s.ledger.getRoundContributions()).get(B)).toBeUndefined();

    devnet.control.mineBlocks(4);
    const summary = await s.unlocker.runOnce();
    expect(summary.decisions).toEqual([expect.objectContaining({ hash: block.id, outcome: 'orphaned' })]);
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('orphaned');
    // PROP: the orphaned round's work is carried into the current round.
    expect((await s.ledger.getRoundContributions()).get(B)).toBe(800n);
    for (const address of [A, B, C]) expect((await s.balances.getBalance(address)).credited).toBe(0n);
    expect((await s.balances.getTotals()).blocksOrphaned).toBe(1n);
    expect(await redis.exists(s.keys.closedRound(block.height, block.id))).toBe(0);
    // The window fixed at the find is kept: a deeper reorg may put the block back (orphan-watch.ts).
    expect(await redis.exists(s.keys.blockWindow(block.id))).toBe(1);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('credits once a block that a short reorg took away and a second reorg brought back before depth', async () => {
    const s = setup('reorg-back');
    const block = await findPplnsBlock(s);
    devnet.control.reorg(1);
    expect((await s.unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'not-on-main-chain' }),
    ]);
    const away = await s.ledger.getBlockCandidate(block.id);
    expect(away).toMatchObject({ status: 'pending', unlockNote: expect.stringContaining('another block') });

    const back = devnet.control.reorgBack();
    expect(back.restored.map((restored) => restored.id)).toEqual([block.id]);
    devnet.control.mineBlocks(5);
    const confirmed = await s.unlocker.runOnce();
    expect(confirmed.decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed', rewardAtomic: block.rewardAtomic }),
    ]);
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
    const expected = pplnsSplitOf(block);
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).credited).toBe(expected.credits.get(address));
    }
    const totals = await s.balances.getTotals();
    expect(totals).toMatchObject({ blocksConfirmed: 1n, blocksOrphaned: 0n, rewards: block.rewardAtomic });
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('flags a credited block that a reorg deeper than confirmDepth took away, once, and debits nobody', async () => {
    const s = setup('deep-reorg');
    const block = await findPplnsBlock(s);
    devnet.control.mineBlocks(5);
    expect((await s.unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed' }),
    ]);
    // Six blocks from the credited one's height are replaced: 5 deep, then 7 new ones on top.
    const { orphaned } = devnet.control.reorg(6);
    expect(orphaned[0]?.id).toBe(block.id);

    const summary = await s.unlocker.runOnce();
    expect(summary.decisions).toEqual([
      expect.objectContaining({
        hash: block.id,
        height: block.height,
        outcome: 'orphaned-after-credit',
        rewardAtomic: block.rewardAtomic,
      }),
    ]);
    expect(await s.ledger.getBlockCandidate(block.id)).toMatchObject({
      status: 'confirmed',
      orphanedAfterCredit: true,
    });
    // Nobody is debited: the operator decides (the report lists it with what was credited).
    const expected = pplnsSplitOf(block);
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).credited).toBe(expected.credits.get(address));
    }
    expect((await s.balances.getTotals()).rewards).toBe(block.rewardAtomic);
    // Told once: later runs do not flag it again.
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('keeps a candidate above the chain tip pending (the chain got shorter)', async () => {
    const s = setup('above-tip', 'solo');
    const height = devnet.chain.height + 3;
    await s.ledger.writeBlockCandidate(
      makeCandidate({ hash: blockHash(0xabc), height, share: makeShare({ solo: true }) }),
    );
    const summary = await s.unlocker.runOnce();
    expect(summary.decisions).toEqual([expect.objectContaining({ outcome: 'above-tip' })]);
    expect((await s.ledger.getBlockCandidate(blockHash(0xabc)))?.status).toBe('pending');
  });

  it('credits a PPLNS block whose share entry 20,000 later shares would have trimmed away', async () => {
    const s = setup('trimmed', 'pplns', { streamMaxLength: 10_000 });
    const block = await findPplnsBlock(s);
    // The next round's shares: none of them counts for this block.
    await recordMany(s.ledger, 20_000, makeShare({ address: B, difficulty: 50 }));
    // Not trimmed while the block's window is still to be fixed.
    expect(await redis.xlen(s.keys.shares)).toBe(20_004);

    const shallow = await s.unlocker.runOnce();
    expect(shallow.decisions).toEqual([expect.objectContaining({ hash: block.id, outcome: 'pending' })]);
    expect((await s.ledger.getBlockCandidate(block.id))?.window).toMatchObject({
      windowDifficulty: 2000n,
      countedDifficulty: 2000n,
      shareCount: 4,
      endReason: 'filled',
    });
    // Fixed: the next write trims the stream again.
    await recordMany(s.ledger, 10, makeShare({ address: B, difficulty: 50 }));
    expect(await redis.xlen(s.keys.shares)).toBeLessThan(10_200);

    devnet.control.mineBlocks(5);
    const confirmed = await s.unlocker.runOnce();
    expect(confirmed.decisions).toEqual([expect.objectContaining({ hash: block.id, outcome: 'confirmed' })]);
    // Exactly what the untrimmed stream pays (the first test's block).
    const expected = pplnsSplitOf(block);
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).credited).toBe(expected.credits.get(address) ?? 0n);
    }
    expect(await redis.exists(s.keys.blockWindow(block.id))).toBe(0);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('credits a refused PPLNS block promoted as already on the chain after 20,000 shares trimmed its entry, and lets the stream be trimmed again', async () => {
    const s = setup('promoted-trimmed', 'pplns', { streamMaxLength: 10_000 });
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
    const [block] = devnet.control.mineBlocks(1);
    const refused = makeCandidate({
      hash: block!.id,
      height: block!.height,
      networkDifficulty: 1000n,
      submitResult: 'rejected',
      share: makeShare({ address: A, difficulty: 300 }),
    });
    await s.ledger.writeBlockCandidate(refused);
    // A refused block holds nothing back: the stream is trimmed past its entry meanwhile.
    await recordMany(s.ledger, 20_000, makeShare({ address: C, difficulty: 50 }));
    expect(await redis.xlen(s.keys.shares)).toBeLessThan(10_300);
    // The diagnosis finds it on the chain after all: a pending pool block, waiting for its window.
    expect(await s.ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');

    devnet.control.mineBlocks(5);
    const decided = await s.unlocker.runOnce();
    // The block is on the chain at depth: its reward must reach the miners, not stay pending for ever.
    expect(decided.decisions).toEqual([expect.objectContaining({ hash: block!.id, outcome: 'confirmed' })]);
    expect((await s.balances.getTotals()).rewards).toBe(block!.rewardAtomic);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
    // Nothing waits for a window any more: the stream is trimmed again.
    await recordMany(s.ledger, 10, makeShare({ address: B, difficulty: 50 }));
    expect(await redis.zcard(s.keys.blocksWindowPending)).toBe(0);
    expect(await redis.xlen(s.keys.shares)).toBeLessThan(10_300);
  });

  /** findPplnsBlock's shares, but submitblock refused the block: recorded 'rejected', `reason` if diagnosed. */
  async function findRefusedPplnsBlock(
    s: ReturnType<typeof setup>,
    reason: 'unknown' | 'stale-tip' | null,
    hash?: string,
  ): Promise<ChainBlock> {
    await s.ledger.recordShare(makeShare({ address: C, difficulty: 5000 }));
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
    await s.ledger.recordShare(makeShare({ address: A, difficulty: 900 }));
    const [block] = devnet.control.mineBlocks(1);
    const refused = makeCandidate({
      hash: hash ?? block!.id,
      height: block!.height,
      networkDifficulty: 1000n,
      submitResult: 'rejected',
      share: makeShare({ address: A, difficulty: 300 }),
    });
    await s.ledger.writeBlockCandidate(refused);
    if (reason !== null) await s.ledger.recordBlockRefusal(refused, reason);
    return block!;
  }

  it.each([
    ['the diagnosis could not ask the daemon', 'unknown' as const],
    ['the process stopped before the diagnosis', null],
    [
      'a stale tip: the daemon kept it as an alternative block and a reorg put it on the main chain',
      'stale-tip' as const,
    ],
  ])('credits a refused block that is the main chain’s block at its height (%s)', async (_, reason) => {
    const s = setup(`refused-on-chain-${reason ?? 'none'}`);
    const block = await findRefusedPplnsBlock(s, reason);
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('rejected');

    await s.unlocker.runOnce();
    // Found on the chain: promoted as the stratum side would have, then decided like any block.
    const promoted = await s.ledger.getBlockCandidate(block.id);
    expect(promoted).toMatchObject({ status: 'pending', refusalReason: 'already-on-chain' });
    devnet.control.mineBlocks(5);
    const confirmed = await s.unlocker.runOnce();
    expect(confirmed.decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed', rewardAtomic: block.rewardAtomic }),
    ]);
    const expected = pplnsSplitOf(block);
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).credited).toBe(expected.credits.get(address) ?? 0n);
    }
    expect((await s.balances.getTotals()).rewards).toBe(block.rewardAtomic);
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('keeps a refused block whose height another block holds refused: asked again until it is confirmDepth deep, then noted off the chain', async () => {
    const s = setup('refused-off-chain');
    const block = await findRefusedPplnsBlock(s, 'unknown', blockHash(0x0ff));
    const refusedHash = blockHash(0x0ff);
    const asked = vi.spyOn(daemon, 'getBlockHeaderByHeight');
    try {
      // Another block at its height, 1 deep: nothing is final yet.
      expect((await s.unlocker.runOnce()).decisions).toEqual([]);
      expect(await s.ledger.getBlockCandidate(refusedHash)).toMatchObject({
        status: 'rejected',
        refusalReason: 'unknown',
        unlockNote: null,
      });
      devnet.control.mineBlocks(5);
      expect((await s.unlocker.runOnce()).decisions).toEqual([]);
      const noted = await s.ledger.getBlockCandidate(refusedHash);
      expect(noted).toMatchObject({
        status: 'rejected',
        unlockNote: expect.stringContaining('another block'),
      });
      expect(await redis.hget(s.keys.block(refusedHash), 'observedHash')).toBe(block.id);
      expect(asked.mock.calls.filter(([height]) => height === block.height)).toHaveLength(2);
      // Settled: not asked again.
      await s.unlocker.runOnce();
      expect(asked.mock.calls.filter(([height]) => height === block.height)).toHaveLength(2);
    } finally {
      asked.mockRestore();
    }
    expect(await redis.zscore(s.keys.blockCandidates, refusedHash)).toBeNull();
    expect(await redis.zscore(s.keys.blocksRejected, refusedHash)).not.toBeNull();
    for (const address of [A, B, C]) expect((await s.balances.getBalance(address)).credited).toBe(0n);
    expect(await s.balances.getTotals()).toMatchObject({ blocksOrphaned: 0n, rewards: 0n });
  });

  it('keeps a refused block refused while the daemon cannot be asked or its height is above the tip', async () => {
    const s = setup('refused-daemon-error');
    const block = await findRefusedPplnsBlock(s, null);
    const aboveTip = makeCandidate({
      hash: blockHash(0xa60),
      height: devnet.chain.height + 3,
      submitResult: 'rejected',
      share: makeShare({ address: B }),
    });
    await s.ledger.writeBlockCandidate(aboveTip);
    const failing = vi
      .spyOn(daemon, 'getBlockHeaderByHeight')
      .mockRejectedValue(new RpcError('RPC_UNREACHABLE', 'connect ECONNREFUSED'));
    try {
      const run = await s.unlocker.runOnce();
      expect(run.decisions).toEqual([
        expect.objectContaining({ hash: aboveTip.hash, outcome: 'error', detail: 'connect ECONNREFUSED' }),
        expect.objectContaining({ hash: block.id, outcome: 'error', detail: 'connect ECONNREFUSED' }),
      ]);
    } finally {
      failing.mockRestore();
    }
    expect(await s.ledger.getBlockCandidate(block.id)).toMatchObject({
      status: 'rejected',
      unlockNote: null,
    });
    expect(await s.ledger.getBlockCandidate(aboveTip.hash)).toMatchObject({
      status: 'rejected',
      unlockNote: null,
    });
    // The daemon answers again: the block is found on the chain; the one above the tip still waits.
    expect((await s.unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'pending' }),
    ]);
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('pending');
    expect(await s.ledger.getBlockCandidate(aboveTip.hash)).toMatchObject({
      status: 'rejected',
      unlockNote: null,
    });
  });

  it('a stale leader does not promote a refused block found on the chain', async () => {
    const s = setup('refused-fenced');
    const block = await findRefusedPplnsBlock(s, 'unknown');
    await redis.set(createPaymentKeys(s.keyPrefix).leaderToken, 'token-2');
    const stale = unlockerOn(
      redis,
      s.keyPrefix,
      { confirmDepth: 5 },
      { daemon, logger: silentLogger, fencingToken: () => 'token-1' },
    );
    await expect(stale.runOnce()).rejects.toMatchObject({ code: 'FENCED' });
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('rejected');
    expect(await redis.zscore(s.keys.blocksWindowPending, block.id)).toBeNull();
    expect(await redis.exists(s.keys.closedRound(block.height, block.id))).toBe(0);
  });

  /** A leader loop around `s`'s unlocker (not started: runs are driven by the test) and the block-found events it publishes. */
  function leaderOf(s: ReturnType<typeof setup>) {
    const events = createPoolEventBus(() => undefined);
    const found: PoolEventMap['block-found'][] = [];
    events.subscribe('block-found', (payload) => found.push(payload));
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      // Payouts are off (null interval): the runner is never called.
      { unlocker: s.unlocker, payouts: undefined as never, events, logger: silentLogger },
    );
    return { loop, events, found };
  }

  it('publishes block-found once for a refused block the unlocker promotes, not again on later runs', async () => {
    const s = setup('refused-found-event');
    const block = await findRefusedPplnsBlock(s, 'unknown');
    const refused = await s.ledger.getBlockCandidate(block.id);
    const { loop, found } = leaderOf(s);

    await loop.unlockOnce();
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('pending');
    expect(found).toEqual([
      expect.objectContaining({
        height: block.height,
        hash: block.id,
        finderAddress: A,
        solo: false,
        timestampMs: refused!.timestampMs,
        foundAfterRefusal: true,
      }),
    ]);
    // Later runs (pending, then confirmed) find nothing to promote: no second block-found.
    await loop.unlockOnce();
    devnet.control.mineBlocks(5);
    await loop.unlockOnce();
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('confirmed');
    expect(found).toHaveLength(1);
  });

  it('publishes no block-found from the leader for a refused block the stratum side promoted already', async () => {
    const s = setup('refused-found-by-stratum');
    const block = await findRefusedPplnsBlock(s, null);
    // The stratum side's diagnosis found it on the chain first (and announced it itself).
    const refused = makeCandidate({ hash: block.id, height: block.height, submitResult: 'rejected' });
    expect(await s.ledger.recordBlockRefusal(refused, 'already-on-chain')).toBe('promoted');
    const { loop, found } = leaderOf(s);

    await loop.unlockOnce();
    expect((await s.ledger.getBlockCandidate(block.id))?.status).toBe('pending');
    expect(found).toEqual([]);
  });

  it('publishes block-found for a promotion even when the rest of that run fails', async () => {
    const s = setup('refused-found-run-fails');
    const block = await findRefusedPplnsBlock(s, 'unknown');
    const { loop, found } = leaderOf(s);
    const fix = vi.spyOn(s.unlocker.windows, 'fixPending').mockRejectedValueOnce(new Error('redis down'));
    try {
      await expect(loop.unlockOnce()).rejects.toThrow('redis down');
    } finally {
      fix.mockRestore();
    }
    expect(found).toEqual([expect.objectContaining({ hash: block.id, foundAfterRefusal: true })]);
    await loop.unlockOnce();
    expect(found).toHaveLength(1);
  });

  it('a refused block already confirmDepth deep is promoted and confirmed in one run: block-found comes first', async () => {
    const s = setup('refused-found-deep');
    const block = await findRefusedPplnsBlock(s, null);
    devnet.control.mineBlocks(5);
    const { loop, events } = leaderOf(s);
    const published: string[] = [];
    events.subscribe('block-found', (p) => published.push(`found ${p.hash}`));
    events.subscribe('block-confirmed', (p) => published.push(`confirmed ${p.hash}`));

    await loop.unlockOnce();
    expect(published).toEqual([`found ${block.id}`, `confirmed ${block.id}`]);
  });

  it('PROP: credits the round the block closed, fixed when it was found, whatever came after', async () => {
    const s = setup('prop-e2e', 'prop', { streamMaxLength: 10_000 });
    await s.ledger.recordShare(makeShare({ address: A, difficulty: 600 }));
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 400 }));
    const block = await findBlock(s, makeShare({ address: C, difficulty: 100 }));
    await recordMany(s.ledger, 12_000, makeShare({ address: A, difficulty: 50 }));
    expect((await s.unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'pending' })]);
    // The window is fixed for every pool block, so a later switch to PPLNS could still pay it.
    expect((await s.ledger.getBlockCandidate(block.id))?.window).toMatchObject({ shareCount: 3 });
    devnet.control.mineBlocks(5);
    expect((await s.unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed' }),
    ]);
    const expected = propSplit({
      reward: block.rewardAtomic,
      roundContributions: new Map([
        [A, 600n],
        [B, 400n],
        [C, 100n],
      ]),
      finder: C,
      fee: FEE.pool,
    });
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).credited).toBe(expected.credits.get(address));
    }
    expect((await s.balances.getTotals()).poolFees).toBe(expected.poolFee);
    expect(await redis.exists(s.keys.closedRound(block.height, block.id), s.keys.blockWindow(block.id))).toBe(
      0,
    );
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('SOLO: credits the finder less the solo fee; a solo block never holds the stream back', async () => {
    const s = setup('solo-e2e', 'solo', { streamMaxLength: 10_000 });
    await s.ledger.recordShare(makeShare({ address: A, difficulty: 600, solo: true }));
    const block = await findBlock(s, makeShare({ address: B, difficulty: 100, solo: true }));
    await recordMany(s.ledger, 12_000, makeShare({ address: A, difficulty: 50, solo: true }));
    expect(await redis.xlen(s.keys.shares)).toBeLessThan(10_300);
    expect((await s.unlocker.runOnce()).decisions).toEqual([expect.objectContaining({ outcome: 'pending' })]);
    expect((await s.ledger.getBlockCandidate(block.id))?.window).toBeNull();
    devnet.control.mineBlocks(5);
    expect((await s.unlocker.runOnce()).decisions).toEqual([
      expect.objectContaining({ hash: block.id, outcome: 'confirmed' }),
    ]);
    const expected = soloSplit({ reward: block.rewardAtomic, finder: B, fee: FEE.solo });
    expect((await s.balances.getBalance(B)).credited).toBe(expected.totalCredited);
    expect((await s.balances.getBalance(A)).credited).toBe(0n);
    expect((await s.balances.getTotals()).poolFees).toBe(expected.poolFee);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('the leader fixes a pool block’s window on block-found, without waiting for the next unlock run', async () => {
    const s = setup('on-found');
    const events = createPoolEventBus(() => undefined);
    const firstRun = vi.spyOn(s.unlocker, 'runOnce');
    const loop = new LeaderLoop(
      { unlockIntervalMs: 3_600_000, payoutIntervalMs: null },
      // Payouts are off (null interval): the runner is never called.
      { unlocker: s.unlocker, payouts: undefined as never, events, logger: silentLogger },
    );
    loop.start();
    try {
      await vi.waitFor(() => expect(firstRun).toHaveBeenCalledOnce());
      await firstRun.mock.results[0]!.value;
      await s.ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
      const candidate = makeCandidate({
        hash: blockHash(0xf0f),
        height: 42,
        networkDifficulty: 1000n,
        share: makeShare({ address: A, difficulty: 300 }),
      });
      await s.ledger.writeBlockCandidate(candidate);
      events.publish('block-found', {
        height: candidate.height,
        hash: candidate.hash,
        finderAddress: candidate.share.address,
        solo: false,
        timestampMs: candidate.timestampMs,
      });
      await vi.waitFor(async () => {
        expect((await s.ledger.getBlockCandidate(candidate.hash))?.window).toMatchObject({ shareCount: 2 });
      });
      expect(firstRun).toHaveBeenCalledOnce();
    } finally {
      await loop.stop();
    }
  });

  it('publishes block-orphaned-after-credit once for a credited block a deep reorg replaced', async () => {
    const s = setup('deep-reorg-event');
    const block = await findPplnsBlock(s);
    devnet.control.mineBlocks(5);
    const { loop, events } = leaderOf(s);
    const published: PoolEventMap['block-orphaned-after-credit'][] = [];
    events.subscribe('block-orphaned-after-credit', (p) => published.push(p));
    await loop.unlockOnce();
    devnet.control.reorg(6);
    await loop.unlockOnce();
    await loop.unlockOnce();
    expect(published).toEqual([{ height: block.height, hash: block.id, rewardAtomic: block.rewardAtomic }]);
  });

  it('does nothing when the fencing hook says this process is not the leader', async () => {
    const keyPrefix = uniquePrefix('not-leader');
    const unlocker = unlockerOn(
      redis,
      keyPrefix,
      {},
      { daemon, logger: silentLogger, fencingToken: () => null },
    );
    expect(await unlocker.runOnce()).toEqual({ skipped: 'not-leader', decisions: [] });
  });
});
