import type { ChainState } from '../chain/chain-state.js';

export interface WalletScanOptions {
  /** The wallet scans a block only once this many more are on top of it (0: at once). */
  readonly lagBlocks: number;
  /** Blocks scanned per second at most; 0: no limit (it reaches its target at once). */
  readonly blocksPerSecond: number;
  readonly now: () => number;
}

/**
 * How far walletd has scanned the daemon's chain. A real walletd fetches the daemon's blocks in
 * the background and trails it, seconds to minutes after a restart or a burst of blocks; until it
 * has scanned a block, that block is not in its getStatus blockCount, its balances or its history.
 * Here the scan follows the daemon `lagBlocks` behind, at most `blocksPerSecond`, and tests can hold
 * it where it is and step it. It is settled (moved on to now) on every chain change and wallet
 * request, so one request sees one scan height throughout. After each move the wallet's pool sync
 * may run (wallet-pool.ts): only at the daemon's tip, and never while the scan is held.
 */
export class WalletScan {
  readonly #chain: ChainState;
  readonly #now: () => number;
  readonly #blocksPerSecond: number;
  #lagBlocks: number;
  /** Blocks scanned (walletd's blockCount): at least the genesis block. */
  #scanned = 1;
  /** When the scan last moved (or was last found with nothing to scan). */
  #scannedAtMs: number;
  /** The chain's height at the last settle: blocks beyond it arrived since. */
  #seenHeight: number;
  #held = false;
  readonly #moved: (() => void)[] = [];

  constructor(chain: ChainState, options: WalletScanOptions) {
    for (const [name, value] of [
      ['lagBlocks', options.lagBlocks],
      ['blocksPerSecond', options.blocksPerSecond],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number >= 0`);
    }
    this.#chain = chain;
    this.#now = options.now;
    this.#lagBlocks = options.lagBlocks;
    this.#blocksPerSecond = options.blocksPerSecond;
    this.#scannedAtMs = options.now();
    this.#seenHeight = chain.height;
    this.catchUp();
    chain.onChange(() => this.settle());
  }

  /** Blocks the wallet has scanned, as of the last settle (never more than the chain has). */
  get blockCount(): number {
    return Math.min(this.#scanned, this.#chain.height);
  }

  /** Whether the scan is held (see hold): walletd's synchronizer stalled, syncing neither blocks nor its pool. */
  get held(): boolean {
    return this.#held;
  }

  /** Calls `listener` after every settle, step and catch-up (the wallet's pool sync follows its block sync). */
  onMove(listener: () => void): void {
    this.#moved.push(listener);
  }

  /** The scan reaches its target now, whatever the rate (a walletd started on a synced container). */
  catchUp(): void {
    if (!this.#held) this.#scanned = Math.max(this.#scanned, this.#target());
    this.#scannedAtMs = this.#now();
    this.#seenHeight = this.#chain.height;
    this.#notify();
  }

  /** Moves the scan on to now: up to its target, at most blocksPerSecond since it last moved. */
  settle(): void {
    this.#step();
    this.#notify();
  }

  #step(): void {
    const height = this.#chain.height;
    const now = this.#now();
    // A reorg below the scanned height: the wallet rescans from the fork, not the blocks it lost.
    this.#scanned = Math.min(this.#scanned, height);
    const target = this.#target();
    // Caught up before the blocks that arrived since: their scan starts now, not at the last move.
    if (height > this.#seenHeight && this.#scanned >= this.#targetAt(this.#seenHeight))
      this.#scannedAtMs = now;
    this.#seenHeight = height;
    if (this.#held || this.#scanned >= target) {
      this.#scannedAtMs = now;
      return;
    }
    if (this.#blocksPerSecond === 0) {
      this.#scanned = target;
      this.#scannedAtMs = now;
      return;
    }
    const steps = Math.floor(((now - this.#scannedAtMs) * this.#blocksPerSecond) / 1000);
    if (steps >= target - this.#scanned) {
      this.#scanned = target;
      this.#scannedAtMs = now;
    } else if (steps > 0) {
      this.#scanned += steps;
      this.#scannedAtMs += (steps * 1000) / this.#blocksPerSecond;
    }
  }

  /** The scan stops where it is until `release` (blocks keep arriving; the wallet sees none). */
  hold(): void {
    this.settle();
    this.#held = true;
  }

  /** A held scan takes in `blocks` more of the daemon's chain (never past its tip). */
  advance(blocks: number): void {
    if (!Number.isSafeInteger(blocks) || blocks < 0)
      throw new RangeError('blocks must be a whole number >= 0');
    if (!this.#held) throw new RangeError('the wallet scan is not held');
    this.#scanned = Math.min(this.#chain.height, this.blockCount + blocks);
    this.#notify();
  }

  /**
   * The wallet rescans from `blockCount` (a walletd reset): the scan goes back there, never forward,
   * and moves on from now as usual (held: it stays there until advanced or released).
   */
  rewind(blockCount: number): void {
    if (!Number.isSafeInteger(blockCount) || blockCount < 0)
      throw new RangeError('blockCount must be a whole number >= 0');
    this.#scanned = Math.max(1, Math.min(this.blockCount, blockCount));
    this.#scannedAtMs = this.#now();
    this.#notify();
  }

  /** The scan moves again: to its target at once, or from here at blocksPerSecond. */
  release(): void {
    this.#held = false;
    this.#scannedAtMs = this.#now();
    this.settle();
  }

  /** Blocks the scan stays behind the daemon's tip from now on. */
  setLagBlocks(blocks: number): void {
    if (!Number.isSafeInteger(blocks) || blocks < 0)
      throw new RangeError('blocks must be a whole number >= 0');
    this.#lagBlocks = blocks;
    this.settle();
  }

  #notify(): void {
    for (const listener of this.#moved) listener();
  }

  #target(): number {
    return this.#targetAt(this.#chain.height);
  }

  #targetAt(height: number): number {
    return Math.max(1, height - this.#lagBlocks);
  }
}
