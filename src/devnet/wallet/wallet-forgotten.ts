import type { WalletChain } from './wallet-chain-view.js';
import type { WalletPool } from './wallet-pool.js';
import type { WalletScan } from './wallet-scan.js';

export interface ForgottenTransactionsModules {
  /** The chain as the wallet has scanned it, with what it holds as unconfirmed. */
  readonly view: WalletChain;
  readonly scan: WalletScan;
  readonly pool: WalletPool;
}

/**
 * Transactions the wallet has lost its record of, as after a walletd reset or a restore from a
 * backup older than them. walletd then rebuilds its history from the chain as it syncs: a mined
 * transaction comes back once its scan passes the block (its scan went back below it), a pooled
 * one from its pool sync at the daemon's tip while the daemon's pool still has it. One the daemon
 * dropped unmined is never found again, unless a block brings it back.
 */
export class ForgottenTransactions {
  readonly #modules: ForgottenTransactionsModules;
  readonly #hashes = new Set<string>();
  /** Found again after being forgotten: walletd's record is the one it rebuilt (wallet-rebuilt.ts). */
  readonly #rebuilt = new Set<string>();

  constructor(modules: ForgottenTransactionsModules) {
    this.#modules = modules;
    // After the pool's own listener (registered first): a pool sync of this move counts.
    modules.scan.onMove(() => this.#findAgain());
  }

  /**
   * The wallet loses its record of `hash`: it no longer holds it unconfirmed, and when it has
   * scanned its block its scan goes back to that block, to pass it again.
   */
  forget(hash: string): void {
    const key = hash.toLowerCase();
    const { view, scan, pool } = this.#modules;
    const block = view.findTransaction(key)?.block;
    this.#hashes.add(key);
    pool.forget(key);
    if (block !== undefined) scan.rewind(block.height);
  }

  /** Whether the wallet has no record of `hash` (yet). */
  has(hash: string): boolean {
    return this.#hashes.has(hash);
  }

  /** Whether the wallet's record of `hash` is one it rebuilt from the chain after forgetting it. */
  rebuilt(hash: string): boolean {
    return this.#rebuilt.has(hash);
  }

  /** Found again: in a block the scan has passed, or held unconfirmed from a pool sync. */
  #findAgain(): void {
    for (const hash of this.#hashes) {
      if (this.#modules.view.findTransaction(hash) === undefined) continue;
      this.#hashes.delete(hash);
      this.#rebuilt.add(hash);
    }
  }
}
