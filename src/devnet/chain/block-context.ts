import { hexToBytes } from '../../fuego/hex.js';
import type { BlockTree } from './block-tree.js';
import type { ValidationContext } from './block-validator.js';
import type { ChainBlock } from './chain-block.js';
import { baseRewardAtomic } from './reward-schedule.js';

/** Median window of block timestamps, as in the daemon. */
const TIMESTAMP_CHECK_WINDOW = 11;

/** The chain's settings a block is checked against (all fixed at start but the difficulty). */
export interface BlockContextSettings {
  readonly genesisId: Uint8Array;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** The difficulty a new block must meet, as set now. */
  readonly difficulty: () => bigint;
  /** Base reward of block 1 (0 = the normal schedule). */
  readonly premineAtomic: bigint;
  readonly coinbaseMaturityBlocks: number;
}

/**
 * What a block built on a known block (the tip, or any block for an alternative one) is checked
 * against, and the timestamp and base reward a template on it gets: derived, as the daemon does,
 * from that block's own branch (its height, the median of its last timestamps, the coins
 * generated up to it), whichever branch is the main chain.
 */
export class BlockContext {
  readonly #tree: BlockTree;
  readonly #settings: BlockContextSettings;

  constructor(tree: BlockTree, settings: BlockContextSettings) {
    this.#tree = tree;
    this.#settings = settings;
  }

  /**
   * What a block extending `parent` is checked against, its transactions' fees read by `feeOf`.
   * `connecting` is a kept block being moved onto the main chain: it is not a duplicate of itself.
   */
  on(
    parent: ChainBlock,
    feeOf: (hashHex: string) => bigint | undefined,
    connecting?: ChainBlock,
  ): ValidationContext {
    return {
      height: parent.height + 1,
      tipId: hexToBytes(parent.id),
      genesisId: this.#settings.genesisId,
      difficulty: this.#settings.difficulty(),
      medianTimestamp: this.#medianTimestamp(parent),
      nowSeconds: BigInt(Math.floor(this.#settings.now() / 1000)),
      baseRewardAtomic: this.baseRewardOn(parent),
      coinbaseMaturityBlocks: this.#settings.coinbaseMaturityBlocks,
      isKnownBlock: (idHex) => idHex !== connecting?.id && this.#tree.blockById(idHex) !== undefined,
      mempoolFee: feeOf,
    };
  }

  /** Base reward of a block on `parent`. */
  baseRewardOn(parent: ChainBlock): bigint {
    return baseRewardAtomic(parent.alreadyGeneratedAtomic, parent.height + 1, this.#settings.premineAtomic);
  }

  /** Timestamp of a new block on `parent`: now, unless that is below the median it must not go under. */
  timestampOn(parent: ChainBlock): bigint {
    const now = BigInt(Math.floor(this.#settings.now() / 1000));
    const median = this.#medianTimestamp(parent);
    return now > median ? now : median;
  }

  /** Median timestamp of `parent` and the blocks before it on its branch (the daemon's window). */
  #medianTimestamp(parent: ChainBlock): bigint {
    const recent: bigint[] = [];
    for (
      let block: ChainBlock | undefined = parent;
      block !== undefined && recent.length < TIMESTAMP_CHECK_WINDOW;
      block = this.#tree.parentOf(block)
    ) {
      recent.push(block.block.timestamp);
    }
    recent.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return recent[Math.floor((recent.length - 1) / 2)] ?? 0n;
  }
}
