import type { PoolBlock } from '../../store/shares/pool-blocks-reader.js';

/**
 * Effort and luck (API.md "Effort and luck"). A round's effort is the difficulty its shares
 * summed to over the network difficulty of the block that closed it (1 = the work a block takes
 * on average). Luck over the last N blocks is the mean effort of the pool's last N found blocks
 * (pending, confirmed and orphaned: an orphan cost the same work; blocks the daemon refused are not
 * listed), skipping solo blocks (they close no pool round); below 1 is luckier than average.
 */

/** Blocks luck is computed over when the request does not say. */
export const LUCK_DEFAULT_BLOCKS = 20;
/** The most blocks one luck request may average (one HGETALL per block). */
export const LUCK_MAX_BLOCKS = 100;

export interface LuckView {
  /** N: the last N found blocks were looked at. */
  readonly blocks: number;
  /** How many of them had a pool round (solo ones and ones without a round record are skipped). */
  readonly counted: number;
  /** Mean effort of the counted blocks, x 100, two decimals; null when none counted. */
  readonly meanEffortPercent: number | null;
}

/** difficulty / network difficulty as a ratio, six decimals; null when either is unknown. */
export function effortRatio(difficulty: bigint, networkDifficulty: bigint | null): number | null {
  if (networkDifficulty === null || networkDifficulty <= 0n) return null;
  return Number((difficulty * 1_000_000n) / networkDifficulty) / 1_000_000;
}

/** difficulty / network difficulty in percent, two decimals; null when either is unknown. */
export function effortPercent(difficulty: bigint, networkDifficulty: bigint | null): number | null {
  if (networkDifficulty === null || networkDifficulty <= 0n) return null;
  return Number((difficulty * 10_000n) / networkDifficulty) / 100;
}

/** Luck of `blocks` (the last N found, highest first), N being `requested`. */
export function luckOf(blocks: readonly PoolBlock[], requested: number): LuckView {
  const efforts: number[] = [];
  for (const block of blocks.slice(0, requested)) {
    if (block.solo || block.round === null) continue;
    const effort = effortRatio(block.round.totalDifficulty, block.networkDifficulty);
    if (effort !== null) efforts.push(effort);
  }
  const mean = efforts.length === 0 ? null : efforts.reduce((sum, e) => sum + e, 0) / efforts.length;
  return {
    blocks: requested,
    counted: efforts.length,
    meanEffortPercent: mean === null ? null : Math.round(mean * 10_000) / 100,
  };
}
