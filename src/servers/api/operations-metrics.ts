import type { Registry } from 'prom-client';
import { gauge } from './metric-factories.js';

/**
 * The figures an operator alerts on (deploy/prometheus/alerts.yml): what the pool owes against
 * what the wallet holds, payout batches, credited blocks a deep reorg took away, the pool's
 * dependencies, the daemon's sync, the leader, the last share and how long the last new template
 * took to reach every miner. Read at scrape time from Redis, the wallet, the API's own pollers and
 * the stratum role.
 */

/** What the pool owes and what pays it, as the money report (`fuego-pool report`) computes it. */
export interface SolvencySnapshot {
  /** Credited by the unlocker and not yet in a payout batch. */
  readonly balanceAtomic: bigint;
  /** Debited into a payout batch whose transaction is not confirmed yet. */
  readonly inPayoutAtomic: bigint;
  /** null when the wallet did not answer getBalance. */
  readonly wallet: { readonly unlockedAtomic: bigint; readonly lockedAtomic: bigint } | null;
  readonly openBatches: number;
  /** Creation time of the oldest open batch (ms), null when none is open. */
  readonly oldestOpenBatchMs: number | null;
  /** When the oldest sent batch whose transaction is not confirmed deep yet was sent; null when none. */
  readonly oldestUnconfirmedSentMs: number | null;
  readonly failedBatches: number;
}

/** Each dependency's state as /health judges it; wallet null when this node has none. */
export interface DependencySnapshot {
  readonly redis: boolean;
  readonly daemon: boolean;
  readonly wallet: boolean | null;
}

/** The daemon's chain as its last getinfo told it. */
export interface DaemonChainSnapshot {
  readonly height: number;
  /** The highest height the daemon has heard of from its peers. */
  readonly knownHeight: number;
  readonly peers: number;
}

/** The PoW implementation verifying shares: the native addon or the TypeScript reference. */
export type PowImplementationLabel = 'native' | 'reference';

export function solvencyMetrics(registry: Registry, clock: () => number) {
  const owed = gauge(registry, {
    name: 'fuego_pool_owed_atomic',
    help: 'Atomic units the pool owes its miners: kind=balance (credited, not in a payout yet; a balance below zero is not netted), kind=in_payout (in a payout batch not confirmed yet)',
    labelNames: ['kind'],
  });
  const wallet = gauge(registry, {
    name: 'fuego_pool_wallet_balance_atomic',
    help: 'The pool wallet balance in atomic units by state (unlocked, locked); kept at the last read while the wallet does not answer',
    labelNames: ['state'],
  });
  const batches = gauge(registry, {
    name: 'fuego_pool_payout_batches',
    help: 'Payout batches by state: open (being sent or waiting for confirmation), failed (rolled back, kept for the record)',
    labelNames: ['state'],
  });
  const oldestOpen = gauge(registry, {
    name: 'fuego_pool_payout_oldest_open_batch_age_seconds',
    help: 'Age of the oldest open payout batch (0 when none is open)',
  });
  const oldestUnconfirmed = gauge(registry, {
    name: 'fuego_pool_payout_oldest_unconfirmed_sent_age_seconds',
    help: 'Age of the oldest sent payout whose transaction is not confirmed 10 blocks deep yet (0 when none): hours means it is not being mined (stuck in the daemon pool, or dropped from it without the wallet noticing), and its miners are shown paid without being paid',
  });
  return (snapshot: SolvencySnapshot): void => {
    owed.set({ kind: 'balance' }, Number(snapshot.balanceAtomic));
    owed.set({ kind: 'in_payout' }, Number(snapshot.inPayoutAtomic));
    if (snapshot.wallet !== null) {
      wallet.set({ state: 'unlocked' }, Number(snapshot.wallet.unlockedAtomic));
      wallet.set({ state: 'locked' }, Number(snapshot.wallet.lockedAtomic));
    }
    batches.set({ state: 'open' }, snapshot.openBatches);
    batches.set({ state: 'failed' }, snapshot.failedBatches);
    // Seconds since `sinceMs`; 0 when nothing waits.
    const ageOf = (sinceMs: number | null) => (sinceMs === null ? 0 : Math.max(0, clock() - sinceMs) / 1000);
    oldestOpen.set(ageOf(snapshot.oldestOpenBatchMs));
    oldestUnconfirmed.set(ageOf(snapshot.oldestUnconfirmedSentMs));
  };
}

export function dependencyMetrics(registry: Registry) {
  const up = gauge(registry, {
    name: 'fuego_pool_dependency_up',
    help: '1 when the dependency answers as /health judges it (redis, daemon, wallet), else 0',
    labelNames: ['dependency'],
  });
  return (snapshot: DependencySnapshot): void => {
    up.set({ dependency: 'redis' }, snapshot.redis ? 1 : 0);
    up.set({ dependency: 'daemon' }, snapshot.daemon ? 1 : 0);
    if (snapshot.wallet !== null) up.set({ dependency: 'wallet' }, snapshot.wallet ? 1 : 0);
  };
}

export function daemonChainMetrics(registry: Registry) {
  const height = gauge(registry, {
    name: 'fuego_pool_daemon_height',
    help: 'Chain height of the pool daemon (getinfo height)',
  });
  const known = gauge(registry, {
    name: 'fuego_pool_daemon_known_height',
    help: "Highest chain height the daemon's peers announced (getinfo last_known_block_index + 1)",
  });
  const peers = gauge(registry, {
    name: 'fuego_pool_daemon_peers',
    help: 'Peer connections of the daemon (outgoing + incoming)',
  });
  return (snapshot: DaemonChainSnapshot): void => {
    height.set(snapshot.height);
    known.set(snapshot.knownHeight);
    peers.set(snapshot.peers);
  };
}

export function leaderMetrics(registry: Registry) {
  const present = gauge(registry, {
    name: 'fuego_pool_leader_present',
    help: '1 while some process holds the leader lease (unlocker, payouts and templates run there), else 0',
  });
  return (isPresent: boolean): void => present.set(isPresent ? 1 : 0);
}

export function orphanedAfterCreditMetrics(registry: Registry) {
  const flagged = gauge(registry, {
    name: 'fuego_pool_blocks_orphaned_after_credit',
    help: "Credited blocks that a reorg deeper than confirmDepth replaced later, as the unlocker's reorg watch flagged them, not settled yet: their credits stand until the operator settles them (fuego-pool report lists them; fuego-pool block settle)",
  });
  return (count: number): void => flagged.set(count);
}

export function orphanSettlementMetrics(registry: Registry) {
  const settled = gauge(registry, {
    name: 'fuego_pool_blocks_orphan_settled',
    help: 'Blocks orphaned after credit that the operator settled (fuego-pool block settle --absorb or --clawback), restored by a later reorg or not; one credited back and then replaced again is flagged again and counts under fuego_pool_blocks_orphaned_after_credit instead',
  });
  const restored = gauge(registry, {
    name: 'fuego_pool_blocks_restored_after_clawback',
    help: 'Clawed-back blocks a later reorg put back on the main chain whose miners are owed the clawback: waiting for fuego-pool block settle HASH --credit-back (0 when none)',
  });
  return (counts: { readonly settled: number; readonly restoredAfterClawback: number }): void => {
    settled.set(counts.settled);
    restored.set(counts.restoredAfterClawback);
  };
}

export function undecidedBlockMetrics(registry: Registry) {
  const depth = gauge(registry, {
    name: 'fuego_pool_oldest_undecided_block_depth',
    help: 'Blocks on top of the oldest block the unlocker has not credited or orphaned yet (0 when none waits). Past payments.confirmDepth a run decides it: a depth that keeps growing past it means unlock runs are held (daemon isolated or syncing, a witness daemon disagreeing or away) or failing',
  });
  /** `oldestHeight` null: no block waits; `chainHeight` (the daemon's block count) null: not known yet. */
  return (oldestHeight: number | null, chainHeight: number | null): void => {
    if (oldestHeight === null) depth.set(0);
    else if (chainHeight !== null) depth.set(Math.max(0, chainHeight - 1 - oldestHeight));
  };
}

export function lastShareMetrics(registry: Registry) {
  const lastShare = gauge(registry, {
    name: 'fuego_pool_last_share_timestamp_seconds',
    help: 'Unix time of the last accepted share of any miner (0 when none is recorded)',
  });
  return (lastShareMs: number | null): void => lastShare.set(lastShareMs === null ? 0 : lastShareMs / 1000);
}

export function powImplementationMetrics(registry: Registry) {
  const implementation = gauge(registry, {
    name: 'fuego_pool_pow_implementation',
    help: 'The cn/upx2 implementation verifying shares: name=native (the addon) or name=reference (TypeScript, about 10x slower)',
    labelNames: ['name'],
  });
  return (name: PowImplementationLabel): void => {
    implementation.set({ name: 'native' }, name === 'native' ? 1 : 0);
    implementation.set({ name: 'reference' }, name === 'reference' ? 1 : 0);
  };
}

/** How long the last new template took to reach every logged-in miner, in seconds. */
export function lastBroadcastMetrics(registry: Registry): (durationMs: number) => void {
  const lastBroadcast = gauge(registry, {
    name: 'fuego_pool_last_broadcast_seconds',
    help: 'How long the last new template took to reach every logged-in miner (the slowest stratum process): grows with the miners a process holds',
  });
  return (durationMs) => lastBroadcast.set(durationMs / 1000);
}

/** Payouts held back and why, for alerting: nothing here may stay non-zero unnoticed. */
export interface PayoutWatchSnapshot {
  /** Miners due but not paid in the last pass, and what they are owed. */
  readonly heldMiners: number;
  readonly heldAtomic: bigint;
  /** Tagged wallet transactions Redis had no batch for, not resolved by the operator yet. */
  readonly unknownPayments: number;
  /** Sent batches whose transaction the wallet has no record of (reset, restored from a backup). */
  readonly sentUnknownToWallet: number;
  /** The wallet refused to build a transaction; payouts pause until this time (ms), or null. */
  readonly backoffUntilMs: number | null;
}

export function payoutWatchMetrics(registry: Registry) {
  const heldMiners = gauge(registry, {
    name: 'fuego_pool_payouts_held_miners',
    help: 'Miners due a payout but not paid in the last pass (fuego-pool report says why)',
  });
  const heldAtomic = gauge(registry, {
    name: 'fuego_pool_payouts_held_atomic',
    help: 'Atomic units owed to the miners held in the last payout pass',
  });
  const unknownPayments = gauge(registry, {
    name: 'fuego_pool_payout_unknown_transactions',
    help: 'Wallet transactions with the pool batch tag that Redis has no batch for, unresolved (see fuego-pool payout resolve)',
  });
  const sentUnknownToWallet = gauge(registry, {
    name: 'fuego_pool_payout_sent_unknown_to_wallet',
    help: 'Sent payout batches whose transaction the wallet has no record of (reset or restored from a backup): settle with fuego-pool payout resolve unless it finds them again',
  });
  const backoff = gauge(registry, {
    name: 'fuego_pool_payout_backoff',
    help: '1 while payouts pause after the wallet refused to build a transaction',
  });
  return (watch: PayoutWatchSnapshot): void => {
    heldMiners.set(watch.heldMiners);
    heldAtomic.set(Number(watch.heldAtomic));
    unknownPayments.set(watch.unknownPayments);
    sentUnknownToWallet.set(watch.sentUnknownToWallet);
    backoff.set(watch.backoffUntilMs !== null && watch.backoffUntilMs > Date.now() ? 1 : 0);
  };
}
