import type { Block } from '../../fuego/block.js';
import { blockId } from '../../fuego/block-hash.js';
import { bytesToHex } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import { serializeTransaction } from '../../fuego/transaction.js';
import type { ChainTransaction } from './chain-transaction.js';

/** A valid block the devnet knows, on the main chain or off it (`orphaned`), with what it adds up to. */
export interface ChainBlock {
  readonly id: string;
  readonly height: number;
  readonly block: Block;
  readonly blob: Uint8Array;
  readonly difficulty: bigint;
  readonly baseRewardAtomic: bigint;
  /** Sum of the coinbase outputs (base reward plus fees). */
  readonly rewardAtomic: bigint;
  readonly feesAtomic: bigint;
  /** Coins generated up to and including this block (base rewards only). */
  readonly alreadyGeneratedAtomic: bigint;
  /** Sum of the difficulties of this block and its ancestors: the heavier chain is the main one. */
  readonly cumulativeDifficulty: bigint;
  readonly coinbaseHash: string;
  readonly transactions: readonly ChainTransaction[];
  orphaned: boolean;
}

/** A block that passed validation: its bytes, the fees it collects, and its transactions. */
export interface ValidBlock {
  readonly block: Block;
  readonly blob: Uint8Array;
  readonly feesAtomic: bigint;
  readonly transactions: readonly ChainTransaction[];
}

/**
 * The record of a valid block on `parent` (none for the genesis, whose difficulty counts as 1),
 * mined at `difficulty` (the devnet's as set now); on the main chain until it is moved off it.
 */
export function chainBlockOf(
  valid: ValidBlock,
  parent: ChainBlock | undefined,
  difficulty: bigint,
): ChainBlock {
  const { block, blob, feesAtomic, transactions } = valid;
  const rewardAtomic = block.baseTransaction.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const base = rewardAtomic - feesAtomic;
  const blockDifficulty = parent === undefined ? 1n : difficulty;
  return {
    id: bytesToHex(blockId(block)),
    height: parent === undefined ? 0 : parent.height + 1,
    block,
    blob,
    difficulty: blockDifficulty,
    baseRewardAtomic: base,
    rewardAtomic,
    feesAtomic,
    alreadyGeneratedAtomic: (parent?.alreadyGeneratedAtomic ?? 0n) + base,
    cumulativeDifficulty: (parent?.cumulativeDifficulty ?? 0n) + blockDifficulty,
    coinbaseHash: bytesToHex(cnFastHash(serializeTransaction(block.baseTransaction))),
    transactions,
    orphaned: false,
  };
}
