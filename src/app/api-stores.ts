import type { Redis } from 'ioredis';
import type { ApiStores } from '../servers/api/api-context.js';
import { RedisMinerAccounts } from '../servers/api/miner-accounts.js';
import { HashrateReader } from '../store/hashrate/hashrate-reader.js';
import { RedisBalances } from '../store/payments/balances-store.js';
import { RedisMinerThresholds } from '../store/payments/miner-thresholds.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { RedisLedgerReader } from '../store/shares/ledger-reader.js';
import { PendingCredits } from '../store/shares/pending-credits.js';
import { PoolBlocksReader } from '../store/shares/pool-blocks-reader.js';

/**
 * The readers the API reads one pool's keys through, on `redis`; `maxThresholdAtomic` caps miners'
 * thresholds; `maxWorkersPerMiner` is the stratum role's cap of worker names (`store.maxWorkersPerMiner`),
 * so a miner's workers are listed whole (with the "(others)" worker); `clock` times the payout
 * list's short cache.
 */
export function createApiStores(
  keyPrefix: string,
  redis: Redis,
  limits: { readonly maxThresholdAtomic: bigint; readonly maxWorkersPerMiner: number },
  clock: () => number = Date.now,
): ApiStores {
  return {
    thresholds: new RedisMinerThresholds(
      { keyPrefix, maxThresholdAtomic: limits.maxThresholdAtomic },
      { redis },
    ),
    ledger: new RedisLedgerReader({ keyPrefix }, { redis }),
    hashrate: new HashrateReader({ keyPrefix, maxWorkersPerMiner: limits.maxWorkersPerMiner }, { redis }),
    blocks: new PoolBlocksReader({ keyPrefix }, { redis }),
    accounts: new RedisMinerAccounts({
      balances: new RedisBalances({ keyPrefix }, { redis }),
      payouts: new PayoutStore({ keyPrefix }, { redis }),
      pending: new PendingCredits({ keyPrefix }, { redis }),
      clock,
    }),
  };
}
