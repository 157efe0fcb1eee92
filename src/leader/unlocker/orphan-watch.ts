import type { Logger } from '../../log/logger.js';
import type { UnlockLedger } from '../../model/blocks/unlock-ledger.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { walkMainChain } from './main-chain-walk.js';
import type { UnlockRunListener } from './unlock-run-listener.js';

/** Orphaned blocks one check looks at, at most (the newest first). */
const CHECKED_PER_RANGE = 1_000;
/** Block-list calls one check makes, at most: fuegod lists about 30 heights per call. */
const LIST_CALLS_PER_RANGE = 50;

export interface OrphanWatchOptions {
  readonly confirmDepth: number;
  /** Orphaned blocks are checked while their depth <= confirmDepth + this (the reorg watch's window). */
  readonly reorgWatchBlocks: number;
  /** PPLNS: a pool block is credited by its fixed window, which orphan_block keeps. */
  readonly poolBlocksByWindow: boolean;
}

export interface OrphanWatchModules {
  readonly ledger: Pick<UnlockLedger, 'listOrphanedBetween' | 'reinstateOrphanedBlock'>;
  readonly daemon: Pick<DaemonClient, 'getBlocksList' | 'getBlockHeaderByHeight'>;
  readonly logger: Logger;
}

/**
 * A block is decided orphaned once another block at its height is confirmDepth deep. A reorg
 * deeper than that can put it back on the main chain: its coinbase then pays the pool's wallet,
 * and its miners are owed its reward. Within the reorg watch's window (and the audit's range below
 * it, when the audit runs), each pass reads the main
 * chain's hashes in ranges (one f_blocks_list_json call per ~30 heights holding orphaned blocks)
 * and makes a block found back at its height pending again, so the unlocker credits it at depth as
 * it would have (a solo block to its finder, a PPLNS block by the window fixed at the find). A pool
 * block that cannot be credited so is noted once, with its reward (its header's: read before the
 * note, which keeps it) and why: PROP merged its round into the next one, whose block paid those
 * shares; or no PPLNS window was kept (an older version orphaned it). Its reward stays in the
 * wallet, owed to nobody by the ledger: the run's listener is told (block-orphan-back-uncredited)
 * and `fuego-pool report` lists it. A block noted so is not looked at again.
 */
export class OrphanWatch {
  readonly #opts: OrphanWatchOptions;
  readonly #modules: OrphanWatchModules;

  constructor(opts: OrphanWatchOptions, modules: OrphanWatchModules) {
    this.#opts = opts;
    this.#modules = modules;
  }

  /**
   * The watch window's orphaned blocks, the chain's top at `top`; returns how many it made pending
   * again. Each block noted back on chain and not credited is told to `listener.onBackUncredited`.
   */
  runOnce(top: number, fencingToken: string, listener: UnlockRunListener = {}): Promise<number> {
    const { confirmDepth, reorgWatchBlocks } = this.#opts;
    const fromHeight = Math.max(0, top - confirmDepth - reorgWatchBlocks);
    return this.checkRange(fromHeight, top, top, fencingToken, listener);
  }

  /**
   * The orphaned blocks from `fromHeight` to `toHeight` against the main chain (the reorg audit
   * calls this for its range below the window, so an unlock run missed while the block was in the
   * window does not lose it); returns how many it made pending again.
   */
  async checkRange(
    fromHeight: number,
    toHeight: number,
    top: number,
    fencingToken: string,
    listener: UnlockRunListener = {},
  ): Promise<number> {
    const listed = await this.#modules.ledger.listOrphanedBetween(fromHeight, toHeight, CHECKED_PER_RANGE);
    const watched = listed.filter((block) => block.height <= top && !block.notedBackOnChain);
    let reinstated = 0;
    await walkMainChain(
      watched,
      this.#modules.daemon,
      LIST_CALLS_PER_RANGE,
      async ({ hash, height }, onChain) => {
        if (onChain !== hash) return;
        if (await this.#backOnChain({ hash, height, top, fencingToken }, listener)) reinstated++;
      },
    );
    return reinstated;
  }

  async #backOnChain(
    block: { hash: string; height: number; top: number; fencingToken: string },
    listener: UnlockRunListener,
  ): Promise<boolean> {
    const { hash, height, top, fencingToken } = block;
    const { ledger, daemon, logger } = this.#modules;
    const header = await daemon.getBlockHeaderByHeight(height);
    // The chain moved between the two reads: the next pass looks again.
    if (header.hash !== hash) return false;
    const rewardAtomic = BigInt(header.reward);
    const depth = top - height;
    const result = await ledger.reinstateOrphanedBlock({
      hash,
      height,
      poolBlocksByWindow: this.#opts.poolBlocksByWindow,
      note: `back on the main chain after a reorg deeper than confirmDepth (${depth} deep): credited at depth`,
      rewardAtomic,
      fencingToken,
    });
    if (result.outcome === 'reinstated') {
      logger.warn(
        { hash, height, depth },
        'orphaned block back on the main chain after a deeper reorg: pending again, credited at depth',
      );
    } else if (result.outcome === 'noted') {
      const { reason } = result;
      listener.onBackUncredited?.({ hash, height, rewardAtomic, reason });
      logger.warn(
        { hash, height, depth, reward: rewardAtomic.toString(), reason },
        reason === 'round-merged'
          ? 'orphaned block back on the main chain after a deeper reorg: not credited (its PROP round was merged into the next one, whose block paid those shares); its reward stays in the wallet as pool surplus, see fuego-pool report'
          : 'orphaned block back on the main chain after a deeper reorg: not credited (no PPLNS window was kept for it); its reward stays in the wallet, owed to its miners: see fuego-pool report',
      );
    }
    return result.outcome === 'reinstated';
  }
}
