import { DUST_THRESHOLD_ATOMIC } from './input-selection.js';

/**
 * Fuego 1.9.3's fusion (wallet optimisation) rules, as WalletGreen and Currency apply them: a zero-fee
 * transaction that joins at least 12 outputs of one power of ten, all below a threshold, into the
 * decimal digits of their sum.
 */

/** FUSION_TX_MAX_SIZE: 30 % of the 800000-byte full-reward zone. */
export const FUSION_TX_MAX_SIZE_BYTES = 240_000;
/** FUSION_TX_MIN_INPUT_COUNT: fewer ready outputs of one power of ten cannot be fused. */
export const FUSION_TX_MIN_INPUT_COUNT = 12;
/** What createFusionTransaction plans for when it estimates how many inputs fit. */
const FUSION_MAX_OUTPUT_COUNT = 8;
/** Below this height (UPGRADE_HEIGHT_V4) outputs under the dust threshold are never fusion-ready. */
const DUST_FUSION_HEIGHT = 300_000;

/**
 * The power of ten of an output that may be fused under `thresholdAtomic` (walletd's
 * isAmountApplicableInFusionTransactionInput), or undefined: the amount must be below the threshold,
 * one digit followed by zeros ("pretty"), and on a chain under 300000 blocks above the dust threshold.
 */
export function fusionBucketOf(
  amountAtomic: bigint,
  thresholdAtomic: bigint,
  topHeight: number,
): number | undefined {
  if (amountAtomic >= thresholdAtomic || amountAtomic <= 0n) return undefined;
  if (topHeight < DUST_FUSION_HEIGHT && amountAtomic < DUST_THRESHOLD_ATOMIC) return undefined;
  const digits = amountAtomic.toString();
  if (!/^[1-9]0*$/.test(digits)) return undefined;
  return digits.length - 1;
}

/**
 * Currency::getApproximateMaximumInputCount for a fusion: how many inputs with `mixin` decoys fit
 * in FUSION_TX_MAX_SIZE next to 8 outputs (2139 with no decoys, which is what walletd uses).
 */
export function maxFusionInputCount(mixin: number): number {
  const outputsSize = FUSION_MAX_OUTPUT_COUNT * (1 + 32 + 10);
  const headerSize = 1 + 8 + 1 + 32;
  const inputSize = 1 + 10 + 32 + 64 + 1 + 4 + mixin * (4 + 64);
  return Math.floor((FUSION_TX_MAX_SIZE_BYTES - headerSize - outputsSize) / inputSize);
}

/**
 * estimateFusion: every unlocked output counts in `totalOutputCount`; the fusion-ready ones count in
 * `fusionReadyCount` only when their power of ten has at least 12 of them.
 */
export function estimateFusion(
  outputs: readonly { readonly amount: bigint }[],
  thresholdAtomic: bigint,
  topHeight: number,
): { fusionReadyCount: number; totalOutputCount: number } {
  let fusionReadyCount = 0;
  for (const group of fusionGroups(outputs, thresholdAtomic, topHeight).values()) {
    if (group.length >= FUSION_TX_MIN_INPUT_COUNT) fusionReadyCount += group.length;
  }
  return { fusionReadyCount, totalOutputCount: outputs.length };
}

/**
 * The inputs of the next fusion: the ready outputs of one power of ten with at least 12 of them, at
 * most `maxInputs`, smallest amount first; empty when no power of ten has 12. walletd picks that
 * power of ten (and, above `maxInputs`, the outputs) at random; the devnet takes the smallest power
 * of ten and the oldest outputs, so tests are repeatable.
 */
export function pickFusionInputs<T extends { readonly amount: bigint }>(
  outputs: readonly T[],
  thresholdAtomic: bigint,
  topHeight: number,
  maxInputs: number,
): T[] {
  const groups = [...fusionGroups(outputs, thresholdAtomic, topHeight).entries()].sort(([a], [b]) => a - b);
  const group = groups.find(([, members]) => members.length >= FUSION_TX_MIN_INPUT_COUNT)?.[1];
  if (!group) return [];
  return group.slice(0, maxInputs).sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0));
}

function fusionGroups<T extends { readonly amount: bigint }>(
  outputs: readonly T[],
  thresholdAtomic: bigint,
  topHeight: number,
): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const output of outputs) {
    const bucket = fusionBucketOf(output.amount, thresholdAtomic, topHeight);
    if (bucket === undefined) continue;
    const group = groups.get(bucket) ?? [];
    group.push(output);
    groups.set(bucket, group);
  }
  return groups;
}
