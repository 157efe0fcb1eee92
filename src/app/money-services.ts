import type { Redis } from 'ioredis';
import type { PoolConfig } from '../config/schema.js';
import { holdPass } from '../leader/payouts/held-payouts.js';
import type { PayoutPassModules } from '../leader/payouts/payout-pass.js';
import { PayoutRunner, type PayoutRunnerModules } from '../leader/payouts/payout-runner.js';
import { type UpkeepWallet, WalletUpkeep } from '../leader/payouts/wallet-upkeep.js';
import { BlockUnlocker, type UnlockerChain } from '../leader/unlocker/block-unlocker.js';
import { DaemonChainTrust, type DaemonChainTrustModules } from '../leader/unlocker/daemon-chain-trust.js';
import {
  type ChainCheck,
  TrustedChainUnlocker,
  type Unlocker,
} from '../leader/unlocker/trusted-chain-unlocker.js';
import { WindowFixer } from '../leader/unlocker/window-fixer.js';
import { WitnessChainCheck, type WitnessChainCheckModules } from '../leader/unlocker/witness-chain-check.js';
import type { Logger } from '../log/logger.js';
import type { PayoutWallet } from '../pool/payouts/payout-wallet.js';
import { RedisBalances } from '../store/payments/balances-store.js';
import { RedisMinerThresholds } from '../store/payments/miner-thresholds.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { PayoutWatchStore } from '../store/payments/payout-watch-store.js';
import { UnlockerStore } from '../store/payments/unlocker-store.js';
import { WalletUpkeepStore } from '../store/payments/wallet-upkeep-store.js';
import { RedisDurability } from '../store/redis-durability.js';
import { PendingCredits } from '../store/shares/pending-credits.js';
import {
  maxThresholdAtomicOf,
  minPayoutAtomicOf,
  payoutRunnerOptionsFrom,
  unlockerOptionsFrom,
  walletUpkeepOptionsFrom,
} from './money-options.js';
import { unlockNeedsDaemonPeers } from './network.js';
import { replicaAcksOf } from './redis-connection.js';
import { witnessesOf } from './witness-daemons.js';

/**
 * The leader's money services as the config describes them, on one Redis: the stores they write
 * through are built here (the services only know their ports). The leader role, `fuego-pool
 * payout` and the tests build them the same way.
 */

export interface MoneyServiceModules {
  readonly redis: Redis;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Leader fencing: the token this process holds, or null when it may not write. */
  readonly fencingToken?: () => string | null;
}

/**
 * The block unlocker, run only on a daemon chain it can trust: peers and not syncing where
 * `payments.unlockNeedsDaemonPeers` holds (by default everywhere but the devnet), and the same
 * chain as every `payments.witnessDaemons` entry.
 */
export function createBlockUnlocker(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules & {
    readonly daemon: UnlockerChain & DaemonChainTrustModules['daemon'] & WitnessChainCheckModules['daemon'];
  },
): Unlocker {
  const { redis, clock } = modules;
  const keyPrefix = config.redis.keyPrefix;
  const options = unlockerOptionsFrom(config.payments);
  const ledger = new UnlockerStore({ keyPrefix }, clock ? { redis, clock } : { redis });
  const fencing = modules.fencingToken ? { fencingToken: modules.fencingToken } : {};
  const windows = new WindowFixer(
    { pplnsWindowFactor: options.pplnsWindowFactor },
    { ledger, logger: modules.logger, ...fencing },
  );
  const unlocker = new BlockUnlocker(options, {
    ledger,
    windows,
    pendingEstimates: new PendingCredits({ keyPrefix }, { redis }),
    daemon: modules.daemon,
    logger: modules.logger,
    ...fencing,
    ...(clock ? { clock } : {}),
  });
  const checks: ChainCheck[] = [];
  if (unlockNeedsDaemonPeers(config.network, config.payments.unlockNeedsDaemonPeers)) {
    checks.push(new DaemonChainTrust({ daemon: modules.daemon, logger: modules.logger }));
  }
  const witnesses = witnessesOf(config);
  if (witnesses.length > 0) {
    checks.push(
      new WitnessChainCheck(
        { confirmDepth: options.confirmDepth },
        { daemon: modules.daemon, witnesses, logger: modules.logger.child({ module: 'witness-check' }) },
      ),
    );
  }
  return checks.length === 0 ? unlocker : new TrustedChainUnlocker({ unlocker, checks });
}

/** The payout runner's stores on one Redis: its journal, the balances, its watch list, durability. */
export function payoutStoresOn(
  redis: Redis,
  keyPrefix: string,
  durability: { readonly replicas: number; readonly timeoutMs: number },
  clock?: () => number,
): Pick<PayoutRunnerModules, 'journal' | 'balances' | 'watch' | 'durability'> {
  const stores = clock ? { redis, clock } : { redis };
  const journal = new PayoutStore({ keyPrefix }, stores);
  return {
    journal,
    balances: new RedisBalances({ keyPrefix }, stores),
    watch: new PayoutWatchStore({ keyPrefix }, stores),
    durability: new RedisDurability({ ...durability, anchorKey: journal.keys.payoutLock }, stores),
  };
}

/** The payout stores of the config's Redis (replica acknowledgements as configured). */
function configuredPayoutStores(config: Readonly<PoolConfig>, redis: Redis, clock?: () => number) {
  const durability = {
    replicas: replicaAcksOf(config.redis)?.replicas ?? 0,
    timeoutMs: config.redis.replicaAckTimeoutMs,
  };
  return payoutStoresOn(redis, config.redis.keyPrefix, durability, clock);
}

/** Miners' own thresholds, capped by the config (what the runner pays by). */
function thresholdsOf(
  config: Readonly<PoolConfig>,
  redis: Redis,
): (address: string) => Promise<bigint | undefined> {
  const thresholds = new RedisMinerThresholds(
    { keyPrefix: config.redis.keyPrefix, maxThresholdAtomic: maxThresholdAtomicOf(config.payments.payouts) },
    { redis },
  );
  return (address) => thresholds.thresholdOf(address);
}

export function createPayoutRunner(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules &
    Pick<PayoutRunnerModules, 'daemon' | 'thresholdOf' | 'faults' | 'onRepeatingRefusal'> & {
      readonly wallet: PayoutWallet;
    },
): PayoutRunner {
  const { redis, clock, ...rest } = modules;
  return new PayoutRunner(payoutRunnerOptionsFrom(config.payments, config.redis.keyPrefix), {
    thresholdOf: thresholdsOf(config, redis),
    ...rest,
    ...(clock ? { clock } : {}),
    ...configuredPayoutStores(config, redis, clock),
  });
}

export function createWalletUpkeep(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules & { readonly wallet: UpkeepWallet },
): WalletUpkeep {
  const { redis, clock, fencingToken } = modules;
  const { journal, watch } = configuredPayoutStores(config, redis, clock);
  return new WalletUpkeep(walletUpkeepOptionsFrom(config.payments.payouts), {
    wallet: modules.wallet,
    journal,
    watch,
    record: new WalletUpkeepStore({ keyPrefix: config.redis.keyPrefix }, { redis }),
    logger: modules.logger.child({ module: 'wallet-upkeep' }),
    ...(clock ? { clock } : {}),
    ...(fencingToken ? { fencingToken } : {}),
  });
}

/**
 * A payout pass as the leader and `fuego-pool payout` run it (payout-pass.ts): the runner, whose
 * repeating refusals ask the wallet upkeep to consolidate, the upkeep, and the hold of a pass that
 * waits for it.
 */
export function createPayoutPass(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules &
    Pick<PayoutRunnerModules, 'daemon' | 'faults'> & { readonly wallet: PayoutWallet & UpkeepWallet },
): Omit<PayoutPassModules, 'logger'> & { readonly payouts: PayoutRunner; readonly upkeep: WalletUpkeep } {
  const upkeep = createWalletUpkeep(config, modules);
  const payouts = createPayoutRunner(config, {
    ...modules,
    onRepeatingRefusal: (reason) => upkeep.request(reason),
  });
  const { balances, watch } = configuredPayoutStores(config, modules.redis, modules.clock);
  const hold = {
    balances,
    watch,
    minPayoutAtomic: minPayoutAtomicOf(config.payments.payouts),
    thresholdOf: thresholdsOf(config, modules.redis),
    logger: modules.logger,
    ...(modules.clock ? { clock: modules.clock } : {}),
  };
  return { payouts, upkeep, holdPass: (reason) => holdPass(hold, reason) };
}
