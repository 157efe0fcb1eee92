import { SchemeError } from './scheme-error.js';

/** Ascending by UTF-16 code units: never `localeCompare`, whose order depends on the node's ICU. */
function compareAddresses(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Slice {
  readonly recipient: string;
  part: bigint;
  /** (amount × weight) mod total: the fraction lost by flooring, in units of 1/total. */
  readonly remainder: bigint;
}

/**
 * Divides `amount` atomic units among recipients in proportion to their weights, exactly.
 *
 * The rule, which every node applies identically so a restart or another leader gets the same result:
 * 1. W = Σ weights. Each recipient first gets floor(amount × w / W).
 * 2. The units lost to flooring, amount − Σ floors, are fewer than the number of recipients with a
 *    positive weight. They are handed out one atomic unit each, to the recipients with the largest
 *    remainder (amount × w) mod W first; equal remainders go to the lower address first
 *    (code-unit order). Nobody gets more than one such unit, and a zero weight never gets one.
 *
 * Hence Σ parts = amount exactly, every part is floor or ceil of its exact share, a larger weight
 * never gets less than a smaller one, and the result does not depend on the map's iteration order.
 *
 * @returns one entry per recipient (zero parts included), keys in ascending address order.
 * @throws SchemeError INVALID_WEIGHTS: amount < 0, a weight < 0, or all weights 0.
 */
export function splitProportionally(
  amount: bigint,
  weights: ReadonlyMap<string, bigint>,
): Map<string, bigint> {
  if (typeof amount !== 'bigint' || amount < 0n) {
    throw new SchemeError('INVALID_WEIGHTS', 'amount to split must be a bigint ≥ 0', {
      amount: String(amount),
    });
  }
  let total = 0n;
  for (const [recipient, weight] of weights) {
    if (typeof weight !== 'bigint' || weight < 0n) {
      throw new SchemeError('INVALID_WEIGHTS', 'weights must be bigints ≥ 0', {
        recipient,
        weight: String(weight),
      });
    }
    total += weight;
  }
  if (total === 0n) {
    throw new SchemeError('INVALID_WEIGHTS', 'weights sum to zero', { recipients: weights.size });
  }

  const slices: Slice[] = [];
  let leftover = amount;
  for (const [recipient, weight] of weights) {
    const product = amount * weight;
    const part = product / total;
    slices.push({ recipient, part, remainder: product % total });
    leftover -= part;
  }
  slices.sort((a, b) => compareAddresses(a.recipient, b.recipient));

  if (leftover > 0n) {
    const byRemainder = [...slices].sort((a, b) =>
      a.remainder > b.remainder
        ? -1
        : a.remainder < b.remainder
          ? 1
          : compareAddresses(a.recipient, b.recipient),
    );
    // leftover < number of slices with a positive remainder, so this never runs off the end.
    for (let i = 0; leftover > 0n; i += 1, leftover -= 1n) {
      byRemainder[i]!.part += 1n;
    }
  }

  return new Map(slices.map((slice) => [slice.recipient, slice.part]));
}
