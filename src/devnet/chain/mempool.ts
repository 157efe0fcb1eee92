import { bytesToHex } from '../../fuego/hex.js';
import type { ChainBlock } from './chain-block.js';
import { addKeyImages, type ChainTransaction } from './chain-transaction.js';

/**
 * The devnet's mempool: admitted transactions not in a main-chain block, by hash. A block going
 * onto the main chain takes its transactions out; a block taken off it puts them back.
 */
export class Mempool {
  readonly #byHash = new Map<string, ChainTransaction>();

  transactions(): ChainTransaction[] {
    return [...this.#byHash.values()];
  }

  /** A pooled transaction by hash (lower-case hex). */
  get(hashHex: string): ChainTransaction | undefined {
    return this.#byHash.get(hashHex);
  }

  add(tx: ChainTransaction): void {
    this.#byHash.set(tx.hash, tx);
  }

  /** False when it was not in the mempool. */
  remove(hashHex: string): boolean {
    return this.#byHash.delete(hashHex);
  }

  /** Takes out the transactions `hashes` name (all pooled): those of a block going onto the tip. */
  take(hashes: readonly Uint8Array[]): ChainTransaction[] {
    const taken = hashes.map((hash) => this.#byHash.get(bytesToHex(hash))!);
    for (const tx of taken) this.#byHash.delete(tx.hash);
    return taken;
  }

  /** Puts back the transactions of blocks taken off the main chain. */
  returnFrom(blocks: readonly ChainBlock[]): void {
    for (const block of blocks) for (const tx of block.transactions) this.#byHash.set(tx.hash, tx);
  }

  /**
   * Takes out the transactions of blocks put onto the main chain, and any pooled transaction
   * spending a key image the main chain now spends (`spentOnChain`).
   */
  confirm(blocks: readonly ChainBlock[], spentOnChain: ReadonlySet<string>): void {
    for (const block of blocks) for (const tx of block.transactions) this.#byHash.delete(tx.hash);
    for (const tx of this.transactions()) {
      if (
        tx.tx.inputs.some((input) => input.kind === 'key' && spentOnChain.has(bytesToHex(input.keyImage)))
      ) {
        this.#byHash.delete(tx.hash);
      }
    }
  }

  /** Adds the key images the pooled transactions spend to `spent`. */
  addKeyImagesTo(spent: Set<string>): Set<string> {
    for (const tx of this.#byHash.values()) addKeyImages(spent, tx);
    return spent;
  }
}
