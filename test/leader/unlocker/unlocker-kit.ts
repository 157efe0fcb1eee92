import type { Redis } from 'ioredis';
import {
  BlockUnlocker,
  type BlockUnlockerModules,
  type BlockUnlockerOptions,
  type UnlockerChain,
} from '../../../src/leader/unlocker/block-unlocker.js';
import { WindowFixer } from '../../../src/leader/unlocker/window-fixer.js';
import { UnlockerStore } from '../../../src/store/payments/unlocker-store.js';
import { PendingCredits } from '../../../src/store/shares/pending-credits.js';

/** The fees the unlocker tests pay with. */
export const FEE = {
  pool: { poolFeeBasisPoints: 100, finderBonusBasisPoints: 0 },
  solo: { poolFeeBasisPoints: 50, finderBonusBasisPoints: 0 },
};

/** An unlocker (with its window fixer) whose ledger and pending estimates are on `redis` under `keyPrefix`. */
export function unlockerOn(
  redis: Redis,
  keyPrefix: string,
  options: Partial<BlockUnlockerOptions>,
  modules: Pick<BlockUnlockerModules, 'daemon' | 'logger' | 'fencingToken'>,
): BlockUnlocker {
  const opts: BlockUnlockerOptions = {
    scheme: 'pplns',
    fee: FEE,
    confirmDepth: 60,
    reorgWatchBlocks: 120,
    pplnsWindowFactor: 2,
    emptyRound: 'credit-finder',
    ...options,
  };
  const ledger = new UnlockerStore({ keyPrefix }, { redis });
  return new BlockUnlocker(opts, {
    ...modules,
    ledger,
    windows: new WindowFixer({ pplnsWindowFactor: opts.pplnsWindowFactor }, { ...modules, ledger }),
    pendingEstimates: new PendingCredits({ keyPrefix }, { redis }),
  });
}

/**
 * A main chain whose top block is at `tipHeight` and whose block at each height is `hashAt(height)`,
 * each with `rewardAtomic`: the daemon as the unlocker reads it, without a devnet.
 */
export function stubChain(
  tipHeight: number,
  hashAt: (height: number) => string,
  rewardAtomic: number,
): UnlockerChain {
  return {
    getBlockCount: async () => tipHeight + 1,
    // fuegod lists 30 heights from the asked one down.
    getBlocksList: async (height: number) =>
      Array.from({ length: Math.min(30, height + 1) }, (_, i) => ({
        height: height - i,
        hash: hashAt(height - i),
      })),
    getBlockHeaderByHeight: async (height: number) => ({
      major_version: 9,
      minor_version: 0,
      timestamp: 1_795_303_328,
      prev_hash: '0'.repeat(64),
      nonce: 1,
      orphan_status: false,
      height,
      depth: tipHeight - height,
      deposits: 0,
      hash: hashAt(height),
      difficulty: 100_000,
      reward: rewardAtomic,
    }),
  };
}
