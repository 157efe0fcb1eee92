import { AddressError, decodeAddress, encodeAddress } from '../../fuego/address.js';

export type FeePaidBy = 'pool' | 'miners';

export interface PayableMiner {
  readonly address: string;
  readonly balanceAtomic: bigint;
  /** The miner's own threshold; below the pool minimum it is raised to it. */
  readonly thresholdAtomic?: bigint;
}

export interface PlannedTransfer {
  readonly address: string;
  readonly destination: string;
  readonly amountAtomic: bigint;
  readonly feeShareAtomic: bigint;
  readonly debitAtomic: bigint;
}

export interface PlannedBatch {
  readonly transfers: readonly PlannedTransfer[];
  /** "" or the 64-hex payment id of the batch's one integrated address. */
  readonly paymentId: string;
  /** What leaves the wallet: amounts + network fee. */
  readonly walletCostAtomic: bigint;
}

export interface PlanOptions {
  readonly minPayoutAtomic: bigint;
  readonly maxTransfersPerTransaction: number;
  readonly networkFeeAtomic: bigint;
  readonly feePaidBy: FeePaidBy;
  /** Spendable wallet balance; batches that do not fit are left for a later run. */
  readonly availableAtomic: bigint;
  readonly maxBatches: number;
}

export interface PayoutPlan {
  readonly batches: readonly PlannedBatch[];
  readonly skipped: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
}

/**
 * Turns payable balances into batches. Pure: the same input always gives the same plan.
 * - A miner is paid when balance >= max(pool minimum, own threshold); the whole balance is paid.
 * - Standard addresses share transactions, up to maxTransfersPerTransaction each, largest first.
 * - An integrated address goes alone: its payment id applies to the whole transaction. The wallet
 *   is given the standard address and the payment id travels in extra (see batch-tag.ts).
 * - feePaidBy 'miners': the network fee is split evenly among the transaction's recipients, the
 *   first ones carrying the odd units, so the shares add up to the fee exactly.
 * - Batches go in the order of their largest balance, integrated or not, each kept while the
 *   wallet's spendable balance covers it and the batch limit allows.
 */
export function planPayouts(miners: readonly PayableMiner[], options: PlanOptions): PayoutPlan {
  const skipped: Array<{ address: string; reason: string }> = [];
  const standard: Array<{ address: string; destination: string; balance: bigint }> = [];
  const integrated: Array<{ address: string; destination: string; paymentId: string; balance: bigint }> = [];
  const ordered = [...miners].sort((a, b) =>
    a.balanceAtomic === b.balanceAtomic
      ? a.address.localeCompare(b.address)
      : a.balanceAtomic > b.balanceAtomic
        ? -1
        : 1,
  );
  for (const miner of ordered) {
    const threshold =
      miner.thresholdAtomic !== undefined && miner.thresholdAtomic > options.minPayoutAtomic
        ? miner.thresholdAtomic
        : options.minPayoutAtomic;
    if (miner.balanceAtomic < threshold || miner.balanceAtomic <= 0n) continue;
    let decoded: ReturnType<typeof decodeAddress>;
    try {
      decoded = decodeAddress(miner.address);
    } catch (error) {
      if (!(error instanceof AddressError)) throw error;
      skipped.push({ address: miner.address, reason: `invalid address (${error.code})` });
      continue;
    }
    if (decoded.type === 'integrated') {
      integrated.push({
        address: miner.address,
        destination: encodeAddress(decoded),
        paymentId: decoded.paymentId,
        balance: miner.balanceAtomic,
      });
    } else {
      standard.push({ address: miner.address, destination: miner.address, balance: miner.balanceAtomic });
    }
  }

  const groups: Array<{ members: typeof standard; paymentId: string }> = [];
  for (let i = 0; i < standard.length; i += options.maxTransfersPerTransaction) {
    groups.push({ members: standard.slice(i, i + options.maxTransfersPerTransaction), paymentId: '' });
  }
  for (const one of integrated) groups.push({ members: [one], paymentId: one.paymentId });
  // Largest first across both kinds: behind every standard batch, an integrated address would
  // wait for as long as the batch limit or the wallet balance is used up by smaller balances.
  // (sort is stable: members are sorted, so a group's first member is its largest.)
  groups.sort((a, b) => {
    const [x, y] = [a.members[0]!.balance, b.members[0]!.balance];
    return x === y ? 0 : x > y ? -1 : 1;
  });

  const batches: PlannedBatch[] = [];
  let available = options.availableAtomic;
  for (const group of groups) {
    const transfers = splitFee(group.members, options);
    if (transfers.some((t) => t.amountAtomic <= 0n)) {
      for (const t of transfers)
        skipped.push({ address: t.address, reason: 'balance does not cover the fee share' });
      continue;
    }
    if (batches.length >= options.maxBatches) {
      for (const t of transfers)
        skipped.push({ address: t.address, reason: 'batch limit of this run reached' });
      continue;
    }
    const walletCostAtomic =
      transfers.reduce((sum, t) => sum + t.amountAtomic, 0n) + options.networkFeeAtomic;
    if (walletCostAtomic > available) {
      for (const t of transfers)
        skipped.push({ address: t.address, reason: 'wallet balance too low for this batch' });
      continue;
    }
    available -= walletCostAtomic;
    batches.push({ transfers, paymentId: group.paymentId, walletCostAtomic });
  }
  return { batches, skipped };
}

function splitFee(
  members: ReadonlyArray<{ address: string; destination: string; balance: bigint }>,
  options: PlanOptions,
): PlannedTransfer[] {
  const count = BigInt(members.length);
  const base = options.feePaidBy === 'miners' ? options.networkFeeAtomic / count : 0n;
  const odd = options.feePaidBy === 'miners' ? options.networkFeeAtomic % count : 0n;
  return members.map((member, index) => {
    const feeShareAtomic = base + (BigInt(index) < odd ? 1n : 0n);
    return {
      address: member.address,
      destination: member.destination,
      amountAtomic: member.balance - feeShareAtomic,
      feeShareAtomic,
      debitAtomic: member.balance,
    };
  });
}
