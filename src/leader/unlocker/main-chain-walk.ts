import type { DaemonClient } from '../../rpc/daemon-client.js';

/**
 * Visits `blocks` (highest first) with the main chain's hash at each one's height, read in ranges:
 * one f_blocks_list_json call (fuegod lists about 30 heights down from the one asked) per stretch
 * of heights that hold blocks, at most `maxCalls`. A block above the listed range's top gets no
 * visit (nothing holds its height yet); an empty list ends the walk (the next pass tries again).
 * Returns the calls made. The reorg watch and the orphan watch both read the chain this way.
 */
export async function walkMainChain<B extends { readonly height: number }>(
  blocks: readonly B[],
  daemon: Pick<DaemonClient, 'getBlocksList'>,
  maxCalls: number,
  visit: (block: B, mainChainHash: string) => Promise<void>,
): Promise<number> {
  let next = 0;
  let calls = 0;
  while (next < blocks.length && calls < maxCalls) {
    const listed = await daemon.getBlocksList(blocks[next]!.height);
    calls++;
    const mainChain = new Map(listed.map((block) => [block.height, block.hash]));
    const lowest = Math.min(...mainChain.keys());
    if (!Number.isFinite(lowest)) break;
    for (; next < blocks.length && blocks[next]!.height >= lowest; next++) {
      const block = blocks[next]!;
      const mainChainHash = mainChain.get(block.height);
      if (mainChainHash !== undefined) await visit(block, mainChainHash);
    }
  }
  return calls;
}
