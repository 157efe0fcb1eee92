import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../../src/devnet/devnet.js';
import {
  BlockUnlocker,
  type BlockUnlockerModules,
  type BlockUnlockerOptions,
} from '../../../src/leader/unlocker/block-unlocker.js';
import { pplnsSplit } from '../../../src/pool/schemes/pplns.js';
import { DaemonClient } from '../../../src/rpc/daemon-client.js';
import { RedisBalances } from '../../../src/store/balances-store.js';
import { PendingCredits } from '../../../src/store/pending-credits.js';
import { createRedisClient } from '../../../src/store/redis-client.js';
import { RedisShareLedger } from '../../../src/store/redis-share-ledger.js';
import { UnlockerStore } from '../../../src/store/unlocker-store.js';
import { startTestDevnet } from '../../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../../helpers/redis-server.js';
import {
  ADDRESSES,
  blockHash,
  makeCandidate,
  makeShare,
  silentLogger,
  uniquePrefix,
} from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from '../payouts/money-invariants.js';

const [A, B, C] = ADDRESSES;
const FEE = {
  pool: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 0 },
  solo: { poolFeeBasisPoints: 50, finderBonusBasisPoints: 0 },
};

/** An unlocker whose ledger and pending estimates are on `redis` under `keyPrefix`. */
function unlockerOn(
  redis: Redis,
  keyPrefix: string,
  options: Partial<BlockUnlockerOptions>,
  modules: Pick<BlockUnlockerModules, 'daemon' | 'logger' | 'fencingToken'>,
): BlockUnlocker {
  return new BlockUnlocker(
    {
      scheme: 'pplns',
      fee: FEE,
      confirmDepth: 60,
      pplnsWindowFactor: 2,
      emptyRound: 'credit-finder',
      ...options,
    },
    {
      ...modules,
      ledger: new UnlockerStore({ keyPrefix }, { redis }),
      pendingEstimates: new PendingCredits({ keyPrefix }, { redis }),
    },
  );
}

describe('BlockUnlocker against the devnet daemon', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet;
  let daemon: DaemonClient;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([startTestRedis(), startTestDevnet()]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    const url = new URL(devnet.daemonUrl);
    daemon = new DaemonClient({ host: url.hostname, port: Number(url.port), timeoutMs: 2_000, retries: 0 });
  });

  afterAll(async () => {
    daemon?.close();
    redis?.disconnect();
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  function setup(label: string, scheme: 'pplns' | 'prop' | 'solo' = 'pplns') {
    const keyPrefix = uniquePrefix(label);
    return {
      keyPrefix,
      ledger: new RedisShareLedger({ keyPrefix }, { redis, logger: silentLogger }),
      unlocker: unlockerOn(redis, keyPrefix, { scheme, confirmDepth: 5 }, { daemon, logger: silentLogger }),
      balances: new RedisBalances({ keyPrefix }, { redis }),
    };
  }

  it('credits a confirmed block exactly per PPLNS, once, with the reward from the header', async () => {
    const s = setup('pplns');
    await s.ledger.recordShare(makeShare({ address: C, difficulty: 5000 }));
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 700 }));
    await s.ledger.recordShare(makeShare({ address: A, difficulty: 900 }));
    const [block] = devnet.control.mineBlocks(1);
    const networkDifficulty = 1000n;
    await s.ledger.writeBlockCandidate(
      makeCandidate({
        hash: block!.id,
        height: block!.height,
        networkDifficulty,
        share: makeShare({ address: A, difficulty: 300 }),
      }),
    );
    const shallow = await s.unlocker.runOnce();
    expect(shallow.decisions).toEqual([expect.objectContaining({ hash: block!.id, outcome: 'pending' })]);
    devnet.control.mineBlocks(5);
    const confirmed = await s.unlocker.runOnce();
    expect(confirmed.decisions).toEqual([
      expect.objectContaining({ outcome: 'confirmed', rewardAtomic: block!.rewardAtomic }),
    ]);
    // Newest first: A 300 (the block's share), A 900, B 700, C 100 of 5000 (window 2000).
    const expected = pplnsSplit({
      reward: block!.rewardAtomic,
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
    for (const address of [A, B, C]) {
      expect((await s.balances.getBalance(address)).balance).toBe(expected.credits.get(address) ?? 0n);
    }
    const totals = await s.balances.getTotals();
    expect(totals.rewards).toBe(block!.rewardAtomic);
    expect(totals.poolFees).toBe(expected.poolFee);
    expect((await s.ledger.getBlockCandidate(block!.id))?.status).toBe('confirmed');
    expect((await s.unlocker.runOnce()).decisions).toEqual([]);
    await expectLedgerConsistent(redis, s.keyPrefix, [A, B, C]);
  });

  it('orphans a candidate replaced by a reorg and credits nothing for it', async () => {
    const s = setup('reorg', 'prop');
    await s.ledger.recordShare(makeShare({ address: B, difficulty: 800 }));
    const [block] = devnet.control.mineBlocks(1);
    await s.ledger.writeBlockCandidate(
      makeCandidate({ hash: block!.id, height: block!.height, share: makeShare({ address: A }) }),
    );
    devnet.control.reorg(1, { replacementBlocks: 2 });
    devnet.control.mineBlocks(6);
    const summary = await s.unlocker.runOnce();
    expect(summary.decisions).toEqual([expect.objectContaining({ hash: block!.id, outcome: 'orphaned' })]);
    expect((await s.ledger.getBlockCandidate(block!.id))?.status).toBe('orphaned');
    // PROP: the orphaned round's work is carried into the current round.
    expect((await s.ledger.getRoundContributions()).get(B)).toBe(800n);
    for (const address of [A, B, C]) expect((await s.balances.getBalance(address)).credited).toBe(0n);
    expect((await s.balances.getTotals()).blocksOrphaned).toBe(1n);
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
