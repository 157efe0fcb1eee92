import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { PoolConfig } from '../config/schema.js';
import { FuegoPoolError } from '../errors.js';
import { COIN_DECIMALS } from '../fuego/money.js';
import { daemonChainDistrustDetail } from '../leader/unlocker/daemon-chain-trust.js';
import type { Logger } from '../log/logger.js';
import type { BanRegistry } from '../pool/ban-registry.js';
import type { PoolEventBus } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import type { RpcCallFanout } from '../rpc/rpc-call-observer.js';
import type { WalletClient } from '../rpc/wallet-client.js';
import { parseApiOptions } from '../servers/api/api-options.js';
import { buildApiServer } from '../servers/api/build-api-server.js';
import type { PoolInfo } from '../servers/api/pool-info.js';
import { CreditedBlocksReader } from '../store/payments/credited-blocks-reader.js';
import { RedisLedgerReader } from '../store/shares/ledger-reader.js';
import { cachedAliasByAddress } from './alias-lookup.js';
import { createApiStores } from './api-stores.js';
import { startFloodDrops } from './flood-drop-start.js';
import { maxThresholdAtomicOf, minPayoutAtomicOf } from './money-options.js';
import { readLeaderPresent, readPayoutWatchSnapshot, readSolvencySnapshot } from './money-report.js';
import { unlockNeedsDaemonPeers } from './network.js';
import type { Part } from './parts.js';
import { POOL_VERSION } from './pool-version.js';
import type { StratumSurface } from './stratum-surface.js';

export interface ApiRoleModules {
  readonly redis: Redis;
  readonly daemon: DaemonClient;
  readonly wallet: WalletClient;
  /** The daemon's and wallet's calls, timed into /metrics. */
  readonly rpcCalls?: RpcCallFanout;
  /** The relayed bus: the live feed shows blocks and payments of every node. */
  readonly events: PoolEventBus;
  readonly logger: Logger;
  readonly adminToken: string | null;
  /** The stratum role of this process or of its stratum children (metrics, listening ports). */
  readonly stratum: StratumSurface | null;
  /** The pool's bans (the API shows only how many are in force). */
  readonly bans: Pick<BanRegistry, 'list'>;
  /** Age of the template this process serves or polls; absent on an API-only node. */
  readonly templateAgeMs?: () => number | undefined;
  /** While the stratum role waits for its first template: what for, in one line (else null). */
  readonly firstTemplateWait?: () => string | null;
  /** API connections this process's open files allow (open-files-budget.ts); none: api.maxConnections. */
  readonly maxConnectionsInProcess?: number;
}

/**
 * The HTTP API + dashboard + live feed. Everything it shows comes from Redis and the daemon, so
 * it runs on any node; the process-local numbers (stratum connections, verifier queue) are those
 * of this process's stratum role and absent on an API-only node.
 */
export async function startApiRole(
  config: Readonly<PoolConfig>,
  modules: ApiRoleModules,
  parts: Part[],
): Promise<FastifyInstance> {
  const { enabled: _enabled, ...apiInput } = config.api;
  const configured = parseApiOptions(apiInput);
  const apiOptions =
    modules.maxConnectionsInProcess === undefined
      ? configured
      : {
          ...configured,
          maxConnections: Math.max(1, Math.min(configured.maxConnections, modules.maxConnectionsInProcess)),
        };
  const { redis, stratum, templateAgeMs } = modules;
  const credited = new CreditedBlocksReader({ keyPrefix: config.redis.keyPrefix }, { redis });
  const ledger = new RedisLedgerReader({ keyPrefix: config.redis.keyPrefix }, { redis });
  const floodDrops = startFloodDrops(config, modules.logger, 'api');
  if (floodDrops !== undefined) parts.push({ name: 'api-flood-drops', stop: () => floodDrops.close() });
  const api = await buildApiServer(apiOptions, {
    ...(floodDrops === undefined ? {} : { floodDrops }),
    redisProbe: () => redis.ping(),
    stores: createApiStores(config.redis.keyPrefix, redis, {
      maxThresholdAtomic: maxThresholdAtomicOf(config.payments.payouts),
      maxWorkersPerMiner: config.store.maxWorkersPerMiner,
    }),
    daemon: modules.daemon,
    poolInfo: poolInfoFrom(config, stratum),
    events: modules.events,
    logger: modules.logger.child({ module: 'api' }),
    adminToken: modules.adminToken,
    ipv6PrefixLength: config.stratum.ipv6PrefixLength,
    metricsSources: {
      ...(stratum === null ? {} : stratum.metricsSources),
      payoutWatch: () => readPayoutWatchSnapshot(config.redis.keyPrefix, redis),
      solvency: () => readSolvencySnapshot(config.redis.keyPrefix, { redis, wallet: modules.wallet }),
      orphanedAfterCredit: () => credited.countOrphanedAfterCredit(),
      orphanSettlements: () => credited.countOrphanSettlements(),
      oldestUndecidedBlockHeight: () => ledger.oldestUndecidedHeight(),
      leaderPresent: () => readLeaderPresent(config.redis.keyPrefix, redis),
      ...(templateAgeMs === undefined ? {} : { templateAgeMs }),
    },
    walletProbe: () => modules.wallet.getStatus(),
    ...(modules.rpcCalls === undefined ? {} : { rpcCalls: modules.rpcCalls }),
    aliasOf: cachedAliasByAddress(modules.daemon, { ttlMs: 10 * 60_000, maxEntries: 10_000 }),

    ...(templateAgeMs === undefined
      ? {}
      : {
          templateStatus: () => ({
            templateAgeMs: templateAgeMs(),
            waiting: modules.firstTemplateWait?.() ?? null,
          }),
        }),
    activeBans: async () => (await modules.bans.list()).length,
    ...(unlockNeedsDaemonPeers(config.network, config.payments.unlockNeedsDaemonPeers)
      ? { daemonChainDistrust: daemonChainDistrustDetail }
      : {}),
    ...(stratum === null ? {} : { adminCounters: () => adminCountersOf(stratum) }),
  });
  try {
    await api.listen({ host: apiOptions.host, port: apiOptions.port });
  } catch (error) {
    // Its background work started on `ready`, before the bind failed.
    await api.close().catch(() => undefined);
    throw listenError(error, `${apiOptions.host}:${apiOptions.port}`);
  }
  parts.push({ name: 'api', stop: () => api.close() });
  modules.logger.info({ address: api.addresses() }, 'API listening');
  return api;
}

/** The API port could not be bound (the operator's message names it, as a stratum port's does). */
export class ApiListenError extends FuegoPoolError<'API_PORT_IN_USE' | 'API_LISTEN_FAILED'> {}

function listenError(error: unknown, where: string): ApiListenError {
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  return errno === 'EADDRINUSE'
    ? new ApiListenError(
        'API_PORT_IN_USE',
        `API port ${where} is already in use`,
        { where },
        { cause: error },
      )
    : new ApiListenError(
        'API_LISTEN_FAILED',
        `API port ${where}: ${error instanceof Error ? error.message : String(error)}`,
        { where, errno },
        { cause: error },
      );
}

/** The stratum role's counters for /api/admin/overview, flat (the children added up, if any). */
function adminCountersOf(stratum: StratumSurface): Record<string, number> {
  const backend = stratum.metricsSources.backend();
  const network = stratum.metricsSources.stratum();
  const rejected = Object.values(backend.sharesRejected).reduce<number>((sum, n) => sum + (n ?? 0), 0);
  return {
    connections: network.connections.current,
    sessions: backend.sessions,
    logins: backend.logins,
    sharesAccepted: backend.sharesAccepted,
    sharesStale: backend.sharesStale,
    sharesRejected: rejected,
    blocksFound: backend.blocksFound,
    blocksAccepted: backend.blocksAccepted,
    blocksRejected: backend.blocksRejected,
    blockSubmitErrors: backend.blockSubmitErrors,
    jobsIssued: backend.jobsIssued,
    bansIssued: backend.bansIssued,
    lastBroadcastMs: backend.lastBroadcastMs,
  };
}

function poolInfoFrom(config: Readonly<PoolConfig>, stratum: StratumSurface | null): PoolInfo {
  const payments = config.payments;
  return {
    name: config.pool.name,
    // Read per request: the API may start before the stratum ports are bound (a port 0 gets its number then).
    get ports() {
      const listening = stratum?.listening() ?? [];
      return config.stratum.ports.map((p, i) => ({
        port: listening[i]?.port ?? p.port,
        difficulty: p.difficulty,
        varDiff: !p.fixedDifficulty,
        tls: p.tls,
        solo: p.solo,
        description: `${p.tls ? 'TLS' : 'TCP'}${p.solo ? ' solo' : ''}, start difficulty ${p.difficulty}`,
      }));
    },
    payments: {
      scheme: payments.scheme,
      pplnsWindowFactor: payments.scheme === 'pplns' ? payments.pplnsWindowFactor : null,
      feePercent: Number(payments.poolFeePercent),
      soloFeePercent: Number(payments.soloFeePercent ?? payments.poolFeePercent),
      minPaymentAtomic: minPayoutAtomicOf(payments.payouts),
      maxThresholdAtomic: maxThresholdAtomicOf(payments.payouts),
      intervalSeconds: payments.payouts.intervalSec,
      unlockDepth: payments.confirmDepth,
      networkFeePaidBy: payments.payouts.feePaidBy,
      transferFeeAtomic: BigInt(payments.payouts.networkFeeAtomic),
    },
    coin: {
      symbol: 'XFG',
      decimals: COIN_DECIMALS,
      blockTargetSeconds: 480,
    },
    version: POOL_VERSION,
  };
}
