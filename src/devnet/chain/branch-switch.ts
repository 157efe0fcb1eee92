import type { BlockContext } from './block-context.js';
import type { BlockTree } from './block-tree.js';
import { type BlockRejectionCode, validateBlock } from './block-validator.js';
import type { ChainBlock } from './chain-block.js';
import type { ChainTransaction } from './chain-transaction.js';

/** Whether the chain may switch to a heavier branch, and if not, why. */
export type BranchSwitch =
  | { readonly kind: 'switch'; readonly branch: readonly ChainBlock[] }
  /** The main-chain blocks it would replace hold a transaction it lacks: its blocks stay alternative. */
  | { readonly kind: 'lacks-transactions' }
  /** `unconnected[0]` is invalid on the main chain: it and the blocks after it are to be dropped. */
  | {
      readonly kind: 'does-not-connect';
      readonly unconnected: readonly ChainBlock[];
      readonly code: BlockRejectionCode;
      readonly detail: string;
    };

/**
 * fuegod's switch_to_alternative_blockchain checks, for the branch ending at `head` (heavier than
 * the main chain), made without changing anything: the branch must carry every transaction of the
 * main-chain blocks it would replace, and each of its blocks must be valid where it would go on
 * the main chain, its transactions in the mempool once the replaced blocks' return there.
 */
export function checkBranchSwitch(
  tree: BlockTree,
  head: ChainBlock,
  mempool: readonly ChainTransaction[],
  context: BlockContext,
): BranchSwitch {
  if (tree.transactionsBranchLacks(head).length > 0) return { kind: 'lacks-transactions' };
  const branch = tree.branchOf(head);
  const pool = new Map(mempool.map((tx) => [tx.hash, tx]));
  for (const block of tree.mainChain().slice(branch[0]!.height))
    for (const tx of block.transactions) pool.set(tx.hash, tx);
  for (const [index, block] of branch.entries()) {
    const parent = tree.parentOf(block)!;
    const onMain = context.on(parent, (hashHex) => pool.get(hashHex)?.feeAtomic, block);
    const verdict = validateBlock(block.blob, onMain, { checkPow: false });
    if (!verdict.accepted) {
      const detail = `switching to block ${block.id}'s branch: ${verdict.detail}`;
      return { kind: 'does-not-connect', unconnected: branch.slice(index), code: verdict.code, detail };
    }
    for (const tx of block.transactions) pool.delete(tx.hash);
  }
  return { kind: 'switch', branch };
}
