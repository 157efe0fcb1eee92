import type { ChainState } from '../chain/chain-state.js';

/**
 * How many outputs of each amount the daemon could hand out as decoys (its getrandom_outs): key
 * outputs on the main chain, spent or not, of every transaction (coinbase included) whose block is
 * at least the coinbase maturity deep and whose unlock time has passed. walletd asks for `mixin`
 * of them per input and refuses the send ("MixIn count is too big") when any amount has fewer; the
 * output being spent counts too (the daemon does not know which one is real).
 */
export function decoySupply(chain: ChainState): Map<bigint, number> {
  const blockCount = chain.height;
  const counts = new Map<bigint, number>();
  for (const block of chain.mainChain()) {
    if (block.height + chain.coinbaseMaturityBlocks > blockCount) break;
    for (const tx of [block.block.baseTransaction, ...block.transactions.map((t) => t.tx)]) {
      if (tx.unlockTime > BigInt(blockCount)) continue;
      for (const output of tx.outputs) {
        if (output.kind === 'key') counts.set(output.amount, (counts.get(output.amount) ?? 0) + 1);
      }
    }
  }
  return counts;
}

/** Whether every input amount has at least `mixin` decoys on offer. */
export function hasEnoughDecoys(
  supply: ReadonlyMap<bigint, number>,
  inputAmounts: readonly bigint[],
  mixin: number,
): boolean {
  return inputAmounts.every((amount) => (supply.get(amount) ?? 0) >= mixin);
}
