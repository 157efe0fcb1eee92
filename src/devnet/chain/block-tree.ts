import { bytesToHex } from '../../fuego/hex.js';
import type { ChainBlock } from './chain-block.js';
import { addKeyImages, type ChainTransaction } from './chain-transaction.js';

/**
 * The blocks the devnet knows, as fuegod's Blockchain holds them: the main chain by height, the
 * alternative blocks (valid blocks off it: stale blocks kept, and the blocks a reorg took off),
 * and both by id. It follows branches (a block's parent, the branch from the main chain up to a
 * block, whether it is heavier, the main-chain transactions it lacks) and moves them: the tail of
 * the main chain off, a branch on, a branch dropped. Validation and the mempool are ChainState's.
 */
export class BlockTree {
  readonly #main: ChainBlock[] = [];
  readonly #byId = new Map<string, ChainBlock>();
  readonly #alternative: ChainBlock[] = [];

  constructor(genesis: ChainBlock) {
    this.extend(genesis);
  }

  /** Number of main-chain blocks (index of the next block). */
  get height(): number {
    return this.#main.length;
  }

  get tip(): ChainBlock {
    return this.#main[this.#main.length - 1]!;
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.#main[height];
  }

  /** A main-chain or alternative block by its id (lower-case hex). */
  blockById(idHex: string): ChainBlock | undefined {
    return this.#byId.get(idHex);
  }

  mainChain(): readonly ChainBlock[] {
    return this.#main;
  }

  alternativeBlocks(): readonly ChainBlock[] {
    return this.#alternative;
  }

  /** Puts `block` (built on the tip) on the main chain. */
  extend(block: ChainBlock): void {
    this.#main.push(block);
    this.#byId.set(block.id, block);
  }

  /** Keeps `block` (built on a known block other than the tip) as an alternative block. */
  keepAlternative(block: ChainBlock): void {
    block.orphaned = true;
    this.#alternative.push(block);
    this.#byId.set(block.id, block);
  }

  /** Whether the branch ending at `block` has more cumulative difficulty than the main chain (ties keep the main chain). */
  isHeavierThanMain(block: ChainBlock): boolean {
    return block.cumulativeDifficulty > this.tip.cumulativeDifficulty;
  }

  isOnMainChain(block: ChainBlock): boolean {
    return this.#main[block.height] === block;
  }

  parentOf(block: ChainBlock): ChainBlock | undefined {
    return block.height === 0 ? undefined : this.#byId.get(bytesToHex(block.block.prevId));
  }

  /** The alternative blocks from the main chain up to `head`, oldest first (none when `head` is on the main chain). */
  branchOf(head: ChainBlock): ChainBlock[] {
    const branch: ChainBlock[] = [];
    for (let block = head; !this.isOnMainChain(block); block = this.parentOf(block)!) branch.unshift(block);
    return branch;
  }

  /**
   * The main-chain transactions above the fork of `head`'s branch that the branch (up to `head`)
   * does not carry: the chain switches to a branch only when it carries them all (fuegod's rule).
   */
  transactionsBranchLacks(head: ChainBlock): ChainTransaction[] {
    const branch = this.branchOf(head);
    const forkHeight = branch[0]?.height ?? head.height + 1;
    const carried = new Set(branch.flatMap((block) => block.transactions.map((tx) => tx.hash)));
    return this.#main
      .slice(forkHeight)
      .flatMap((block) => block.transactions)
      .filter((tx) => !carried.has(tx.hash));
  }

  /** A transaction confirmed on the main chain, with its block. */
  findOnMainChain(hashHex: string): { tx: ChainTransaction; block: ChainBlock } | undefined {
    for (const block of this.#main) {
      for (const tx of block.transactions) if (tx.hash === hashHex) return { tx, block };
    }
    return undefined;
  }

  /** A transaction carried by an alternative block. */
  findInAlternative(hashHex: string): ChainTransaction | undefined {
    for (const block of this.#alternative)
      for (const tx of block.transactions) if (tx.hash === hashHex) return tx;
    return undefined;
  }

  /** The key images the main chain's transactions spend. */
  spentKeyImages(): Set<string> {
    const spent = new Set<string>();
    for (const block of this.#main) for (const tx of block.transactions) addKeyImages(spent, tx);
    return spent;
  }

  /** Moves the last `count` main-chain blocks (never the genesis) to the alternative blocks; returns them, oldest first. */
  detachTail(count: number): ChainBlock[] {
    const removable = Math.max(0, Math.min(count, this.#main.length - 1));
    const detached = this.#main.splice(this.#main.length - removable, removable);
    for (const block of detached) {
      block.orphaned = true;
      this.#alternative.push(block);
    }
    return detached;
  }

  /** Moves `branch` (alternative blocks, oldest first, forking from the tip) onto the main chain. */
  attach(branch: readonly ChainBlock[]): void {
    this.#removeAlternative(branch);
    for (const block of branch) {
      block.orphaned = false;
      this.#main.push(block);
    }
  }

  /** Forgets alternative blocks (a branch that does not connect). */
  drop(blocks: readonly ChainBlock[]): void {
    for (const block of blocks) this.#byId.delete(block.id);
    this.#removeAlternative(blocks);
  }

  #removeAlternative(blocks: readonly ChainBlock[]): void {
    const removing = new Set(blocks);
    this.#alternative.splice(
      0,
      this.#alternative.length,
      ...this.#alternative.filter((block) => !removing.has(block)),
    );
  }
}
