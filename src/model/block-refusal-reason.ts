/**
 * - `stale-tip`: the chain tip is no longer the block the template built on.
 * - `already-on-chain`: the block is on the chain at its height after all (a duplicate submit, or
 *   a daemon answering -7 for a block it took): recorded as found and credited like any block.
 * - `pow-disagreement`: same tip, block not on the chain: the daemon's cn/upx2 most likely
 *   disagrees with the pool's (and XMRig's), as with a fuegod built with GCC -O3.
 * - `unknown`: the daemon could not be asked (the leader's unlocker asks the chain later, as it
 *   does for a refusal never diagnosed).
 */
export type BlockRefusalReason = 'stale-tip' | 'already-on-chain' | 'pow-disagreement' | 'unknown';

export const BLOCK_REFUSAL_REASONS: readonly BlockRefusalReason[] = Object.freeze([
  'stale-tip',
  'already-on-chain',
  'pow-disagreement',
  'unknown',
]);

export function isBlockRefusalReason(value: string): value is BlockRefusalReason {
  return (BLOCK_REFUSAL_REASONS as readonly string[]).includes(value);
}
