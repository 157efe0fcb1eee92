import type { Redis } from 'ioredis';
import { createClusterKeys } from '../cluster/cluster-keys.js';
import type { UncreditedBackOnChainBlock } from '../model/blocks/unlock-ledger.js';
import type { DurabilityGuarantee } from '../model/payouts/durability-barrier.js';
import { type PayoutBatch, sentAtMs } from '../model/payouts/payout-batch.js';
import type { HeldPayout, SendBackoff, UnknownPayment } from '../model/payouts/payout-watch.js';
import type { FuegodSighting } from '../pool/payouts/unmined-payouts.js';
import type { WalletClient } from '../rpc/wallet-client.js';
import type { PayoutWatchSnapshot, SolvencySnapshot } from '../servers/api/operations-metrics.js';
import {
  type PoolTotals,
  type PositiveBalanceAudit,
  RedisBalances,
} from '../store/payments/balances-store.js';
import {
  CreditedBlocksReader,
  type OrphanedAfterCreditBlock,
  type SettledOrphanBlock,
} from '../store/payments/credited-blocks-reader.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { PayoutWatchStore } from '../store/payments/payout-watch-store.js';
import { RedisDurability } from '../store/redis-durability.js';

const FAILED_SHOWN = 20;
const ORPHANED_AFTER_CREDIT_SHOWN = 50;
/** Sent batches the wallet has no record of that the report lists (all are counted). */
const WALLET_MISSING_SHOWN = 100;
/** Sent batches not confirmed yet that the report reads (a few at most, normally). */
const UNCONFIRMED_SENT_SHOWN = 100;

/** A sent batch whose transaction the wallet answered 29 "Object not found" for, since `sinceMs`. */
export interface WalletMissingBatch {
  readonly batch: PayoutBatch;
  readonly sinceMs: number;
}

/** Everything `fuego-pool report` says about the money, read once. */
export interface MoneyReport {
  readonly totals: PoolTotals;
  /** What the pool owes: balances above zero + in payout. */
  readonly owedAtomic: bigint;
  /** What miners below zero (paid twice) owe the pool: not netted against `owedAtomic`. */
  readonly belowZeroAtomic: bigint;
  /**
   * The balances above zero: the payable index summed in full by the report (its figures come
   * from this), and the sum the money scripts kept at that instant, which /metrics reads (null
   * when none was kept: the report stored it). Where the two differed the report stored the full
   * sum; a difference means a process changed balances without keeping it (an older version).
   */
  readonly positiveBalance: PositiveBalanceAudit;
  /** null when the wallet could not be read (with the reason). */
  readonly wallet:
    | { readonly availableAtomic: bigint; readonly lockedAtomic: bigint }
    | { readonly error: string };
  readonly ledgerConsistent: { readonly credited: boolean; readonly rewards: boolean };
  readonly openBatches: readonly PayoutBatch[];
  readonly failedBatches: readonly PayoutBatch[];
  /** Sent batches whose transaction is not 10 blocks deep yet, oldest send first (at most UNCONFIRMED_SENT_SHOWN). */
  readonly unconfirmedSent: readonly PayoutBatch[];
  /** What fuegod says of the ones not mined UNMINED_AFTER_MS after their send, by batch id (when asked). */
  readonly fuegodSightings?: ReadonlyMap<string, FuegodSighting>;
  /** Oldest first, at most WALLET_MISSING_SHOWN of `walletMissingCount`. */
  readonly walletMissing: readonly WalletMissingBatch[];
  readonly walletMissingCount: number;
  readonly held: readonly HeldPayout[];
  readonly unknownPayments: readonly UnknownPayment[];
  readonly backoff: SendBackoff | null;
  /** Credited blocks a reorg deeper than confirmDepth replaced, highest first (the newest 50). */
  readonly orphanedAfterCredit: readonly OrphanedAfterCreditBlock[];
  /** Those the operator settled (`fuego-pool block settle`), highest first (the newest 50). */
  readonly settledOrphans: readonly SettledOrphanBlock[];
  /** Clawed-back ones a later reorg put back on the main chain, not credited back yet. */
  readonly restoredAfterClawback: readonly SettledOrphanBlock[];
  /**
   * Blocks decided orphaned that a deeper reorg put back on the main chain and that the ledger does
   * not credit (a PROP round merged, no kept window): their reward is in the wallet, owed to nobody
   * by the ledger; highest first (the newest 50).
   */
  readonly orphanedBackOnChain: readonly UncreditedBackOnChainBlock[];
  readonly durability: DurabilityGuarantee | { readonly kind: 'unreadable'; readonly detail: string };
}

/** Reads the report of one pool (Redis and, for solvency, the wallet). */
export async function readMoneyReport(
  keyPrefix: string,
  modules: {
    readonly redis: Redis;
    readonly wallet: Pick<WalletClient, 'getBalance'>;
    readonly durability: { readonly replicas: number; readonly timeoutMs: number };
  },
): Promise<MoneyReport> {
  const { redis } = modules;
  const balances = new RedisBalances({ keyPrefix }, { redis });
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const watch = new PayoutWatchStore({ keyPrefix }, { redis });
  const durability = new RedisDurability(
    { ...modules.durability, anchorKey: journal.keys.payoutLock },
    { redis },
  );
  const [totals, positiveBalance] = await Promise.all([
    balances.getTotals(),
    balances.auditPositiveBalance(),
  ]);
  let wallet: MoneyReport['wallet'];
  try {
    const balance = await modules.wallet.getBalance();
    wallet = {
      availableAtomic: BigInt(balance.availableBalance),
      lockedAtomic: BigInt(balance.lockedAmount),
    };
  } catch (error) {
    wallet = { error: error instanceof Error ? error.message : String(error) };
  }
  const accounted = totals.balance + totals.inPayout + totals.paid + totals.networkFees;
  const credited = new CreditedBlocksReader({ keyPrefix }, { redis });
  const [batches, held, unknownPayments, backoff, orphanedAfterCredit] = await Promise.all([
    readBatches(journal),
    watch.listHeld(),
    watch.listUnknownPayments(),
    watch.getBackoff(),
    credited.listOrphanedAfterCredit(ORPHANED_AFTER_CREDIT_SHOWN),
  ]);
  const [settledOrphans, restoredAfterClawback, orphanedBackOnChain] = await Promise.all([
    credited.listSettledOrphans(ORPHANED_AFTER_CREDIT_SHOWN),
    credited.listRestoredAfterClawback(ORPHANED_AFTER_CREDIT_SHOWN),
    credited.listUncreditedBackOnChain(ORPHANED_AFTER_CREDIT_SHOWN),
  ]);
  let guarantee: MoneyReport['durability'];
  try {
    guarantee = await durability.describe();
  } catch (error) {
    guarantee = { kind: 'unreadable', detail: error instanceof Error ? error.message : String(error) };
  }
  return {
    totals,
    owedAtomic: positiveBalance.summedAtomic + totals.inPayout,
    belowZeroAtomic: positiveBalance.summedAtomic - totals.balance,
    positiveBalance,
    wallet,
    ledgerConsistent: {
      credited: totals.credited === accounted,
      rewards: totals.rewards + totals.adjustments === totals.credited + totals.poolFees,
    },
    ...batches,
    held,
    unknownPayments,
    backoff,
    orphanedAfterCredit,
    settledOrphans,
    restoredAfterClawback,
    orphanedBackOnChain,
    durability: guarantee,
  };
}

/** The figures /metrics exposes about held payouts, from the same keys. */
export async function readPayoutWatchSnapshot(keyPrefix: string, redis: Redis): Promise<PayoutWatchSnapshot> {
  const watch = new PayoutWatchStore({ keyPrefix }, { redis });
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const [held, unknown, backoff, counts] = await Promise.all([
    watch.listHeld(),
    watch.listUnknownPayments(),
    watch.getBackoff(),
    journal.countBatches(),
  ]);
  return {
    sentUnknownToWallet: counts.walletMissing,
    heldMiners: held.length,
    heldAtomic: held.reduce((sum, h) => sum + h.amountAtomic, 0n),
    unknownPayments: unknown.filter((p) => p.status === 'unresolved').length,
    backoffUntilMs: backoff?.untilMs ?? null,
  };
}

/**
 * The solvency figures /metrics exposes: what is owed as the report counts it (balances above
 * zero + in payout), the wallet balance (null when the wallet does not answer) and the payout
 * batches. The balances above zero are the sum the money scripts keep (one read, whatever the
 * number of miners); the report sums the index in full and compares.
 */
export async function readSolvencySnapshot(
  keyPrefix: string,
  modules: { readonly redis: Redis; readonly wallet: Pick<WalletClient, 'getBalance'> },
): Promise<SolvencySnapshot> {
  const { redis } = modules;
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const balances = new RedisBalances({ keyPrefix }, { redis });
  const [totals, positiveAtomic, counts, oldestOpen, oldestUnconfirmedSentMs, wallet] = await Promise.all([
    balances.getTotals(),
    balances.positiveBalanceTotal(),
    journal.countBatches(),
    journal.listOpenBatches(1),
    journal.oldestUnconfirmedSentMs(),
    modules.wallet.getBalance().then(
      (balance) => ({
        unlockedAtomic: BigInt(balance.availableBalance),
        lockedAtomic: BigInt(balance.lockedAmount),
      }),
      () => null,
    ),
  ]);
  return {
    balanceAtomic: positiveAtomic,
    inPayoutAtomic: totals.inPayout,
    wallet,
    openBatches: counts.open,
    oldestOpenBatchMs: oldestOpen[0]?.createdAtMs ?? null,
    oldestUnconfirmedSentMs,
    failedBatches: counts.failed,
  };
}

/** The payout batches the report shows: open, failed, sent and not confirmed yet, unknown to the wallet. */
async function readBatches(
  journal: PayoutStore,
): Promise<
  Pick<
    MoneyReport,
    'openBatches' | 'failedBatches' | 'unconfirmedSent' | 'walletMissing' | 'walletMissingCount'
  >
> {
  const [openBatches, failedBatches, unconfirmedSent, missingSince] = await Promise.all([
    journal.listOpenBatches(),
    journal.listFailedBatches(FAILED_SHOWN),
    journal.listUnconfirmedSent(UNCONFIRMED_SENT_SHOWN),
    journal.walletMissingSince(),
  ]);
  const walletMissing: WalletMissingBatch[] = [];
  for (const [batchId, sinceMs] of [...missingSince].slice(0, WALLET_MISSING_SHOWN)) {
    const batch = await journal.getBatch(batchId);
    if (batch !== null) walletMissing.push({ batch, sinceMs });
  }
  return {
    openBatches,
    failedBatches,
    unconfirmedSent: [...unconfirmedSent].sort((a, b) => sentAtMs(a) - sentAtMs(b)),
    walletMissing,
    walletMissingCount: missingSince.size,
  };
}

/** Whether some process holds the leader lease now. */
export async function readLeaderPresent(keyPrefix: string, redis: Redis): Promise<boolean> {
  return (await redis.exists(createClusterKeys(keyPrefix).leaderToken)) === 1;
}
