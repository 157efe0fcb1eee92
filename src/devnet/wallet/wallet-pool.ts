import type { ChainState } from '../chain/chain-state.js';
import type { ChainTransaction } from '../chain/chain-transaction.js';
import type { WalletScan } from './wallet-scan.js';

export interface WalletPoolModules {
  readonly chain: ChainState;
  readonly scan: WalletScan;
  /** Whether the daemon answers: no pool sync without it. */
  readonly daemonReachable: () => boolean;
  /** Blocks the daemon's peers know beyond its tip: while any, walletd keeps syncing blocks. */
  readonly daemonBlocksBehind: () => number;
}

/**
 * The transactions the wallet holds as unconfirmed: the daemon's pool as the wallet last took it in,
 * and those it relayed itself. walletd's synchronizer asks for pool changes only after its block sync
 * is done: with the last block it scanned, which the daemon must confirm is its tail, and not while
 * the daemon's peers know more blocks than the daemon has (it goes on syncing blocks then). So while
 * the wallet trails, or its daemon trails or is unreachable, a transaction that left the pool stays
 * unconfirmed to the wallet, and a new one is not seen. A pool sync forgets only the transactions an
 * earlier pool sync saw: one the wallet relayed that left the pool before any pool sync saw it stays
 * unconfirmed until walletd restarts (reload).
 */
export class WalletPool {
  readonly #modules: WalletPoolModules;
  /** Unconfirmed to the wallet, by hash (also those mined in blocks it has not scanned). */
  readonly #held = new Map<string, ChainTransaction>();
  /** Hashes a pool sync found in the daemon's pool: the ones the next pool sync can report gone. */
  readonly #seen = new Set<string>();

  constructor(modules: WalletPoolModules) {
    this.#modules = modules;
    // The first sync comes with the scan's first move (the wallet's first request or chain change).
    modules.scan.onMove(() => this.sync());
  }

  /**
   * walletd restarted: at load it takes every transaction it holds unconfirmed as one its daemon's
   * pool had (initTransactionPool), so its next pool sync lets go of those the pool no longer has
   * (CANCELLED), the stuck ones above included.
   */
  reload(): void {
    for (const hash of this.#held.keys()) this.#seen.add(hash);
    this.sync();
  }

  /** A transaction the daemon took from this wallet: unconfirmed to it at once, seen in the pool or not. */
  addRelayed(tx: ChainTransaction): void {
    this.#hold(tx);
  }

  /** The wallet lost its record of `hash` (a reset): no longer unconfirmed to it until a pool sync sees it. */
  forget(hash: string): void {
    this.#held.delete(hash);
    this.#seen.delete(hash);
  }

  get(hash: string): ChainTransaction | undefined {
    return this.#held.get(hash);
  }

  /** The held transactions, in the order the wallet learnt of them. */
  transactions(): ChainTransaction[] {
    return [...this.#held.values()];
  }

  /**
   * walletd's pool sync, when it would run: the wallet at the daemon's tip and not held, the daemon
   * reachable and not behind its peers. What a sync saw that is no longer in the pool is dropped
   * (CANCELLED unless it is in a block), and the pool's transactions are taken in.
   */
  sync(): void {
    const { chain, scan } = this.#modules;
    if (scan.held || scan.blockCount < chain.height) return;
    if (!this.#modules.daemonReachable() || this.#modules.daemonBlocksBehind() > 0) return;
    const pool = chain.mempool();
    const pooled = new Set(pool.map((tx) => tx.hash));
    for (const hash of this.#seen) {
      if (pooled.has(hash)) continue;
      this.#seen.delete(hash);
      this.#held.delete(hash);
    }
    // Scanned in a block: confirmed, no longer unconfirmed (the wallet is at the tip here).
    for (const hash of this.#held.keys()) if (chain.findTransaction(hash)?.block) this.#held.delete(hash);
    for (const tx of pool) {
      this.#seen.add(tx.hash);
      this.#hold(tx);
    }
  }

  #hold(tx: ChainTransaction): void {
    if (!this.#held.has(tx.hash)) this.#held.set(tx.hash, tx);
  }
}
