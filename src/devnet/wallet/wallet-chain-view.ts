import type { ChainBlock, ChainState } from '../chain/chain-state.js';
import type { ChainTransaction } from '../chain/chain-transaction.js';
import type { OutputOwners } from '../chain/output-keys.js';
import type { WalletPool } from './wallet-pool.js';
import type { WalletScan } from './wallet-scan.js';

/**
 * The chain as the wallet knows it: the blocks it has scanned, and as pending (unconfirmed) the
 * transactions it holds as unconfirmed (wallet-pool.ts: the daemon's pool as of its last pool sync,
 * and its own relayed ones) that are not in a scanned block, mined in an unscanned one or not. What
 * its balances, history and input choice are computed from.
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
  /** Transactions the wallet holds as unconfirmed (see WalletPool), in the order it learnt of them. */
  mempool(): ChainTransaction[];
  /** A transaction by hash, with its block when the wallet has scanned it. */
  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined;
  /** A block by id, undefined when the wallet has not scanned it. */
  blockById(idHex: string): ChainBlock | undefined;
}

export interface WalletChainViewModules {
  readonly chain: ChainState;
  readonly scan: WalletScan;
  readonly pool: WalletPool;
  /** Blocks the daemon's peers know beyond its tip (getinfo's last_known_block_index less its top index). */
  readonly daemonBlocksBehind: () => number;
}

/** The daemon's chain cut at the wallet's scan height (see WalletScan), and the wallet's pool view. */
export class WalletChainView implements WalletChain {
  readonly #chain: ChainState;
  readonly #scan: WalletScan;
  readonly #pool: WalletPool;
  readonly #daemonBlocksBehind: () => number;

  constructor(modules: WalletChainViewModules) {
    this.#chain = modules.chain;
    this.#scan = modules.scan;
    this.#pool = modules.pool;
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
    return this.#pool.transactions().filter((tx) => this.#scannedBlockOf(tx.hash) === undefined);
  }

  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined {
    const block = this.#scannedBlockOf(hashHex);
    if (block !== undefined) return { tx: this.#chain.findTransaction(hashHex)!.tx, block };
    const held = this.#pool.get(hashHex);
    return held === undefined ? undefined : { tx: held };
  }

  /** The scanned main-chain block holding `hashHex`, if any. */
  #scannedBlockOf(hashHex: string): ChainBlock | undefined {
    const block = this.#chain.findTransaction(hashHex)?.block;
    return block !== undefined && block.height < this.height ? block : undefined;
  }

  blockById(idHex: string): ChainBlock | undefined {
    const block = this.#chain.blockById(idHex);
    return block !== undefined && !block.orphaned && block.height >= this.height ? undefined : block;
  }
}
