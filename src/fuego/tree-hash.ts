import { CodecError } from './errors.js';
import { type FastHash, hashPair } from './keccak.js';

/**
 * CryptoNote's transaction merkle tree (`tree_hash`). For n leaves:
 * - n = 1: the leaf itself; n = 2: H(h0 ‖ h1);
 * - n ≥ 3: with cnt = the largest power of two strictly below n, the first 2·cnt − n leaves are kept
 *   and the rest are hashed in adjacent pairs, giving cnt nodes; pairs are then hashed until one is left.
 * H is keccak of the 64 concatenated bytes.
 */
export function treeHash(leaves: readonly Uint8Array[]): Uint8Array {
  const n = leaves.length;
  if (n === 0) {
    throw new CodecError('INVALID_VALUE', 'tree hash needs at least one leaf', { count: 0 });
  }
  if (n === 1) return leaves[0]!.slice();
  let nodes = firstLevel(leaves);
  while (nodes.length > 1) nodes = hashAdjacentPairs(nodes);
  return nodes[0]!;
}

/** ⌊log2 n⌋ for n ≥ 1: the number of hashes in a branch of an n-leaf tree. */
export function treeDepth(count: number): number {
  if (!Number.isInteger(count) || count < 1) {
    throw new CodecError('INVALID_VALUE', 'tree depth needs a positive leaf count', { count });
  }
  let depth = 0;
  for (let rest = count; rest > 1; rest = Math.floor(rest / 2)) depth++;
  return depth;
}

/**
 * The merkle branch of leaf 0 (the coinbase), in the daemon's order: `branch[depth − 1]` is the sibling
 * next to the leaf, `branch[0]` the sibling next to the root. It does not depend on leaf 0 itself, so a
 * pool computes it once per template and then gets the root for each new coinbase hash with
 * `treeHashFromBranch(branch, coinbaseHash)`, i.e. `depth` hashes instead of the whole tree.
 */
export function treeBranch(leaves: readonly Uint8Array[]): Uint8Array[] {
  const n = leaves.length;
  if (n === 0) {
    throw new CodecError('INVALID_VALUE', 'tree branch needs at least one leaf', { count: 0 });
  }
  if (n === 1) return [];
  const siblingsFromLeaf: Uint8Array[] = [];
  const cnt = largestPowerOfTwoBelow(n);
  // When nothing is kept (n a power of two), leaf 0 is paired with leaf 1 on the way to the first level.
  if (2 * cnt - n === 0) siblingsFromLeaf.push(leaves[1]!.slice());
  let nodes = firstLevel(leaves);
  while (nodes.length > 1) {
    siblingsFromLeaf.push(nodes[1]!);
    nodes = hashAdjacentPairs(nodes);
  }
  return siblingsFromLeaf.reverse();
}

/**
 * `tree_hash_from_branch`: the root reached from `leaf` through `branch` (length = depth).
 * Walking from depth − 1 down to 0, bit d of `path` (byte d >> 3, bit d & 7) puts the running hash on
 * the right of `branch[d]` when set, on the left when clear. No path means "always left" (leaf 0).
 * Depth 0 returns the leaf unchanged.
 */
export function treeHashFromBranch(
  branch: readonly Uint8Array[],
  leaf: Uint8Array,
  path?: Uint8Array,
  fastHash?: FastHash,
): Uint8Array {
  const pair = fastHash ? (left: Uint8Array, right: Uint8Array) => fastHash(concat64(left, right)) : hashPair;
  let running = leaf;
  for (let d = branch.length - 1; d >= 0; d--) {
    const sibling = branch[d]!;
    const onRight = path !== undefined && ((path[d >> 3] ?? 0) & (1 << (d & 7))) !== 0;
    running = onRight ? pair(sibling, running) : pair(running, sibling);
  }

  return running === leaf ? leaf.slice() : running;
}

/** Largest power of two strictly less than n (n ≥ 2). */
function largestPowerOfTwoBelow(n: number): number {
  let cnt = 1;
  while (cnt * 2 < n) cnt *= 2;
  return cnt;
}

/** The cnt-node level of `tree_hash` for n ≥ 2 leaves (for n = 2 it is already the root). */
function firstLevel(leaves: readonly Uint8Array[]): Uint8Array[] {
  const n = leaves.length;
  const cnt = largestPowerOfTwoBelow(n);
  const kept = 2 * cnt - n;
  const nodes: Uint8Array[] = leaves.slice(0, kept).map((leaf) => leaf.slice());
  for (let i = kept; i < n; i += 2) nodes.push(hashPair(leaves[i]!, leaves[i + 1]!));
  return nodes;
}

function hashAdjacentPairs(nodes: readonly Uint8Array[]): Uint8Array[] {
  const next: Uint8Array[] = [];
  for (let i = 0; i < nodes.length; i += 2) next.push(hashPair(nodes[i]!, nodes[i + 1]!));
  return next;
}

function concat64(left: Uint8Array, right: Uint8Array): Uint8Array {
  const both = new Uint8Array(64);
  both.set(left, 0);
  both.set(right, 32);
  return both;
}
