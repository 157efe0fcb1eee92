import { parseBlock } from '../../fuego/block.js';
import { blockId } from '../../fuego/block-hash.js';
import { bytesToHex } from '../../fuego/hex.js';

/** A block as the devnet saves it: its bytes and the difficulty it was mined at. */
export interface HeldBlock {
  readonly id: string;
  readonly parentId: string;
  readonly height: number;
  readonly blob: Uint8Array;
  readonly difficulty: bigint;
}

/**
 * Blocks the rest of the network has and the daemon does not: the alternative blocks of a devnet
 * restarted from its snapshot. fuegod stores its main chain but keeps alternative blocks in memory
 * only, so after a restart it has forgotten them; its peers have not, and when one builds on such a
 * block the daemon asks them for the branch and places it block by block.
 */
export class NetworkBlocks {
  readonly #byId = new Map<string, HeldBlock>();

  /** Holds a saved block (its height as it was: saved blocks come back oldest first). */
  hold(blob: Uint8Array, difficulty: bigint, height: number): void {
    const block = parseBlock(blob);
    const id = bytesToHex(blockId(block));
    this.#byId.set(id, { id, parentId: bytesToHex(block.prevId), height, blob, difficulty });
  }

  has(idHex: string): boolean {
    return this.#byId.has(idHex);
  }

  /** Every held block, oldest first (what a snapshot saves again). */
  all(): HeldBlock[] {
    return [...this.#byId.values()].sort((a, b) => a.height - b.height);
  }

  /**
   * Hands over the held blocks up to `idHex`, oldest first, from the first one whose parent the
   * daemon knows (`known`); they are no longer held. Empty when `idHex` is not held or its branch
   * does not reach a block the daemon knows.
   */
  takeBranch(idHex: string, known: (idHex: string) => boolean): HeldBlock[] {
    const branch: HeldBlock[] = [];
    for (let block = this.#byId.get(idHex); block !== undefined; block = this.#byId.get(block.parentId)) {
      branch.unshift(block);
      if (known(block.parentId)) {
        for (const taken of branch) this.#byId.delete(taken.id);
        return branch;
      }
    }
    return [];
  }
}

/**
 * The daemon gets the network's branch up to `idHex` from its peers when it does not know that
 * block: each block placed as a peer's block is (`receive`), oldest first. Nothing happens when the
 * daemon knows the block or the network does not hold it; throws when a block does not connect.
 */
export function fetchBranch(
  network: NetworkBlocks,
  idHex: string,
  daemon: {
    readonly known: (idHex: string) => boolean;
    readonly receive: (block: HeldBlock) => { accepted: true } | { accepted: false; detail: string };
  },
): void {
  if (daemon.known(idHex)) return;
  for (const block of network.takeBranch(idHex, daemon.known)) {
    const result = daemon.receive(block);
    if (!result.accepted)
      throw new Error(`the network's block ${block.id} does not connect: ${result.detail}`);
  }
}
