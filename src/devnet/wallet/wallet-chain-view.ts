import type { ChainBlock, ChainState } from '../chain/chain-state.js';
import type { ChainTransaction } from '../chain/chain-transaction.js';
import type { OutputOwners } from '../chain/output-keys.js';
import type { WalletScan } from './wallet-scan.js';

/**
 * The chain as the wallet knows it: the blocks it has scanned, and as pending (unconfirmed) every
 * transaction it has not seen in a scanned block, those of the daemon's pool and those of blocks
 * it has not scanned yet. What its balances, history and input choice are computed from.
 */
export interface WalletChain {
  /** Blocks the wallet has scanned (its getStatus blockCount). */
  readonly height: number;
  /** The last scanned block. */
  readonly tip: ChainBlock;
  /**
   * walletd's node.getKnownBlockCount(): the daemon's top index or the highest its peers know,
   * plus one. getStatus's knownBlockCount; records' confirmations count from it.
   */
  readonly knownBlockCount: number;
  readonly outputOwners: OutputOwners;
  /** The scanned blocks, oldest first. */
  mainChain(): readonly ChainBlock[];
  /** Transactions the wallet holds as unconfirmed: those of unscanned blocks, then the daemon's pool. */
  mempool(): ChainTransaction[];
  /** A transaction by hash, with its block when the wallet has scanned it. */
  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined;
  /** A block by id, undefined when the wallet has not scanned it. */
  blockById(idHex: string): ChainBlock | undefined;
}

export interface WalletChainViewModules {
  readonly chain: ChainState;
  readonly scan: WalletScan;
  /** Blocks the daemon's peers know beyond its tip (getinfo's last_known_block_index less its top index). */
  readonly daemonBlocksBehind: () => number;
}

/** The daemon's chain cut at the wallet's scan height (see WalletScan). */
export class WalletChainView implements WalletChain {
  readonly #chain: ChainState;
  readonly #scan: WalletScan;
  readonly #daemonBlocksBehind: () => number;

  constructor(modules: WalletChainViewModules) {
    this.#chain = modules.chain;
    this.#scan = modules.scan;
    this.#daemonBlocksBehind = modules.daemonBlocksBehind;
  }

  get height(): number {
    return this.#scan.blockCount;
  }

  get tip(): ChainBlock {
    return this.#chain.blockAt(this.height - 1)!;
  }

  get knownBlockCount(): number {
    return this.#chain.height + this.#daemonBlocksBehind();
  }

  get outputOwners(): OutputOwners {
    return this.#chain.outputOwners;
  }

  mainChain(): readonly ChainBlock[] {
    const main = this.#chain.mainChain();
    const scanned = this.height;
    return scanned >= main.length ? main : main.slice(0, scanned);
  }

  mempool(): ChainTransaction[] {
    const unscanned = this.#chain
      .mainChain()
      .slice(this.height)
      .flatMap((block) => block.transactions);
    return [...unscanned, ...this.#chain.mempool()];
  }

  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined {
    const found = this.#chain.findTransaction(hashHex);
    if (found?.block !== undefined && found.block.height >= this.height) return { tx: found.tx };
    return found;
  }

  blockById(idHex: string): ChainBlock | undefined {
    const block = this.#chain.blockById(idHex);
    return block !== undefined && !block.orphaned && block.height >= this.height ? undefined : block;
  }
}
