import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { PoolConfig } from '../config/schema.js';
import { PayoutRunner, type PayoutRunnerModules } from '../leader/payouts/payout-runner.js';
import { BlockUnlocker, type UnlockerChain } from '../leader/unlocker/block-unlocker.js';
import { WindowFixer } from '../leader/unlocker/window-fixer.js';
import type { PayoutWallet } from '../pool/payouts/payout-wallet.js';
import { RedisBalances } from '../store/balances-store.js';
import { RedisMinerThresholds } from '../store/miner-thresholds.js';
import { PayoutStore } from '../store/payout-store.js';
import { PayoutWatchStore } from '../store/payout-watch-store.js';
import { PendingCredits } from '../store/pending-credits.js';
import { RedisDurability } from '../store/redis-durability.js';
import { UnlockerStore } from '../store/unlocker-store.js';
import { maxThresholdAtomicOf, payoutRunnerOptionsFrom, unlockerOptionsFrom } from './money-options.js';
import { replicaAcksOf } from './redis-connection.js';

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

export function createBlockUnlocker(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules & { readonly daemon: UnlockerChain },
): BlockUnlocker {
  const { redis, clock } = modules;
  const keyPrefix = config.redis.keyPrefix;
  const options = unlockerOptionsFrom(config.payments);
  const ledger = new UnlockerStore({ keyPrefix }, clock ? { redis, clock } : { redis });
  const fencing = modules.fencingToken ? { fencingToken: modules.fencingToken } : {};
  const windows = new WindowFixer(
    { pplnsWindowFactor: options.pplnsWindowFactor },
    { ledger, logger: modules.logger, ...fencing },
  );
  return new BlockUnlocker(options, {
    ledger,
    windows,
    pendingEstimates: new PendingCredits({ keyPrefix }, { redis }),
    daemon: modules.daemon,
    logger: modules.logger,
    ...fencing,
  });
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

export function createPayoutRunner(
  config: Readonly<PoolConfig>,
  modules: MoneyServiceModules &
    Pick<PayoutRunnerModules, 'daemon' | 'thresholdOf' | 'afterStep' | 'onRepeatingRefusal'> & {
      readonly wallet: PayoutWallet;
    },
): PayoutRunner {
  const { redis, clock, ...rest } = modules;
  const durability = {
    replicas: replicaAcksOf(config.redis)?.replicas ?? 0,
    timeoutMs: config.redis.replicaAckTimeoutMs,
  };
  const thresholds = new RedisMinerThresholds(
    { keyPrefix: config.redis.keyPrefix, maxThresholdAtomic: maxThresholdAtomicOf(config.payments.payouts) },
    { redis },
  );
  return new PayoutRunner(payoutRunnerOptionsFrom(config.payments, config.redis.keyPrefix), {
    thresholdOf: (address) => thresholds.thresholdOf(address),
    ...rest,
    ...(clock ? { clock } : {}),
    ...payoutStoresOn(redis, config.redis.keyPrefix, durability, clock),
  });
}
