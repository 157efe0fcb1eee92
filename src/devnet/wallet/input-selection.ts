/** walletd never spends an output of this amount or less (DEFAULT_DUST_THRESHOLD, 0.002 XFG). */
export const DUST_THRESHOLD_ATOMIC = 20_000n;

/**
 * walletd 1.9.3's choice of inputs (WalletGreen::selectTransfers): the spendable outputs above the
 * dust threshold, grouped by their number of decimal digits; each round takes the newest output of
 * every group, smallest group first, until the amount is covered. So a large payout from a wallet of
 * small coinbase outputs spends many inputs of every size, rare amounts included, which is how it
 * runs out of decoys or out of transaction size.
 *
 * `outputs` in the wallet's order (oldest first). Returns what was taken and its sum, which is
 * below `neededAtomic` when the outputs do not cover it.
 */
export function selectInputs<T extends { readonly amount: bigint }>(
  outputs: readonly T[],
  neededAtomic: bigint,
): { chosen: T[]; totalAtomic: bigint } {
  const groups = new Map<number, T[]>();
  for (const output of outputs) {
    if (output.amount <= DUST_THRESHOLD_ATOMIC) continue;
    const digits = output.amount.toString().length;
    const group = groups.get(digits) ?? [];
    group.push(output);
    groups.set(digits, group);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => a - b).map(([, group]) => group);
  const chosen: T[] = [];
  let totalAtomic = 0n;
  while (totalAtomic < neededAtomic && ordered.some((group) => group.length > 0)) {
    for (const group of ordered) {
      const output = group.pop();
      if (output === undefined || totalAtomic >= neededAtomic) continue;
      chosen.push(output);
      totalAtomic += output.amount;
    }
  }
  return { chosen, totalAtomic };
}
