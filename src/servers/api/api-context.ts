import type { HashrateReader } from '../../store/hashrate/hashrate-reader.js';
import type { RedisMinerThresholds } from '../../store/payments/miner-thresholds.js';
import type { RedisLedgerReader } from '../../store/shares/ledger-reader.js';
import type { PoolBlocksReader } from '../../store/shares/pool-blocks-reader.js';
import type { PoolMetrics } from './api-metrics.js';
import type { ApiConnectionCaps } from './connection-caps.js';
import type { HealthMonitor } from './health-monitor.js';
import type { LiveFeed } from './live-feed.js';
import type { MinerAccountsReader } from './miner-accounts.js';
import type { NetworkInfoCache } from './network-info.js';
import type { RequestRateLimit } from './request-rate-limit.js';
import type { StatsService } from './stats-service.js';

/**
 * What the API's parts share: the store readers it reads through and the services
 * buildApiServer builds for the route plugins. Its own module so that the route plugins and the
 * builder that registers them never import each other.
 */

/** The store readers the API reads through. */
export interface ApiStores {
  readonly ledger: Pick<
    RedisLedgerReader,
    'getCurrentRoundSummary' | 'getMinerShareTotals' | 'getWorkerShareTotals'
  >;
  readonly hashrate: HashrateReader;
  readonly blocks: PoolBlocksReader;
  /** null: the balances store is not available to this process (balances show as null). */
  readonly accounts: MinerAccountsReader | null;
  /** Miners' own payout thresholds: read for the miner view, written by the signed POST. */
  readonly thresholds: Pick<RedisMinerThresholds, 'read' | 'write'>;
}

/** The services buildApiServer builds; also the fastify decoration `app.pool` (tests drive them). */
export interface ApiServices {
  readonly stats: StatsService;
  readonly network: NetworkInfoCache;
  readonly health: HealthMonitor;
  readonly liveFeed: LiveFeed;
  readonly metrics: PoolMetrics;
  readonly rateLimit: RequestRateLimit;
  readonly connectionCaps: ApiConnectionCaps;
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly pool: ApiServices;
  }
}
