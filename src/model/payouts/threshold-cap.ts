/**
 * The threshold the payout planner applies for a stored one: capped by the current cap (an
 * operator who lowers it lowers every threshold above it at once); undefined when the miner
 * follows the pool minimum. The planner raises anything below the minimum to it.
 */
export function effectiveThreshold(storedAtomic: bigint | null, maxAtomic: bigint): bigint | undefined {
  if (storedAtomic === null) return undefined;
  return storedAtomic > maxAtomic ? maxAtomic : storedAtomic;
}
