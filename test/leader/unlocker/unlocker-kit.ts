import type { Redis } from 'ioredis';
import {
  BlockUnlocker,
  type BlockUnlockerModules,
  type BlockUnlockerOptions,
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
