import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSchemeName } from '../../../src/pool/schemes/payment-scheme-name.js';
import { RedisBalances } from '../../../src/store/payments/balances-store.js';
import { RedisShareLedger } from '../../../src/store/shares/redis-share-ledger.js';
import { DEFAULT_STORE_OPTIONS } from '../../helpers/config-defaults.js';
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
 * the next one when it was orphaned, which paid those shares: the block is only noted.
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
  async function orphanedThenRestored(scheme: PaymentSchemeName, audit = false) {
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
    // A 6-deep reorg (within confirmDepth + reorgWatchBlocks) puts the pool's block back.
    devnet.control.mineOnBlock(hash, devnet.chain.height - height);
    expect(devnet.chain.blockAt(height)?.id).toBe(hash);
    return { redis, keyPrefix, ledger, unlocker, hash, clock };
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
});
