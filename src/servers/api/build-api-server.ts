import cors from '@fastify/cors';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import type { ApiOptions, ApiOptionsInput } from '../../config/api-schema.js';
import type { Logger } from '../../log/logger.js';
import { monotonicMs } from '../../monotonic-clock.js';
import type { PoolEventBus } from '../../pool/events.js';
import type { DaemonInfo } from '../../rpc/daemon-schemas.js';
import type { RpcCallFanout } from '../../rpc/rpc-call-observer.js';
import { StoreError } from '../../store/store-error.js';
import type { FloodDrops } from '../flood-drop/flood-drops.js';
import { registerAdminRoutes } from './admin-routes.js';
import type { ApiServices, ApiStores } from './api-context.js';
import { ApiError, errorReply } from './api-errors.js';
import { createPoolMetrics, type MetricsSources, type PoolMetrics } from './api-metrics.js';
import { parseApiOptions } from './api-options.js';
import { MAX_ADDRESS_PARAM_LENGTH } from './api-schemas.js';
import { registerClassicRoutes } from './classic-routes.js';
import { ApiConnectionCaps } from './connection-caps.js';
import { dashboardDir, registerDashboardFiles } from './dashboard-files.js';
import { registerExportRoutes } from './export-routes.js';
import {
  HealthMonitor,
  type HealthMonitorModules,
  type HealthView,
  type TemplateHealthStatus,
} from './health-monitor.js';
import { LiveFeed } from './live-feed.js';
import { registerMinerRoutes } from './miner-routes.js';
import { registerMinerThresholdRoute } from './miner-threshold-route.js';
import { registerMonitoringRoutes } from './monitoring-routes.js';
import { type NetworkDaemon, NetworkInfoCache } from './network-info.js';
import type { DaemonChainSnapshot, DependencySnapshot } from './operations-metrics.js';
import type { PoolInfo } from './pool-info.js';
import { registerPoolRoutes } from './pool-routes.js';
import { RequestRateLimit } from './request-rate-limit.js';
import { StatsService } from './stats-service.js';

/** Requests are GETs, or a small signed JSON body: a body this large is already abuse. */
const BODY_LIMIT_BYTES = 16 * 1024;

export interface ApiServerModules {
  /** Pings Redis for /health (e.g. () => redis.ping()). */
  readonly redisProbe: () => Promise<unknown>;
  readonly stores: ApiStores;
  readonly daemon: NetworkDaemon;
  readonly poolInfo: PoolInfo;
  readonly events: PoolEventBus;
  readonly logger: Logger;
  /** The wall clock: dates, windows over stored timestamps. */
  readonly clock?: () => number;
  /** Milliseconds that only go forward, for ages (/health); defaults to monotonicMs. */
  readonly elapsedClock?: () => number;
  /** From adminTokenFromEnv(process.env) at the composition root; null disables admin routes. */
  readonly adminToken: string | null;
  readonly metricsSources?: MetricsSources;
  /** A registry shared with the rest of the process; built here if absent. */
  readonly metrics?: PoolMetrics;
  /** The process's daemon and wallet calls, timed into fuego_pool_rpc_duration_seconds / _errors_total. */
  readonly rpcCalls?: Pick<RpcCallFanout, 'listen'>;
  readonly walletProbe?: () => Promise<unknown>;
  /** Drops the new connections of peers that keep coming while over their connection cap. */
  readonly floodDrops?: FloodDrops;
  readonly templateStatus?: () => TemplateHealthStatus;
  /** /health's daemonChain check (health-monitor.ts); absent: "not-configured". */
  readonly daemonChainDistrust?: HealthMonitorModules['daemonChainDistrust'];
  readonly aliasOf?: (address: string) => Promise<string | null>;
  /** Active bans (a count: the API never shows an IP). */
  readonly activeBans?: () => number | Promise<number>;
  /** Extra counters for /api/admin/overview (e.g. PoolBackend.metrics() numbers). */
  readonly adminCounters?: () => Record<string, number>;
  /** Feed and long-poll caps count an IPv6 peer by this network (stratum.ipv6PrefixLength). */
  readonly ipv6PrefixLength?: number;
}

/**
 * Builds the HTTP API (fastify) without listening: the caller listens (on options.host/port) and
 * tests inject requests. The live feed's WebSocket attaches to the instance's server and works once
 * it listens. Background work (daemon poll, wallet probe, feed ticks) starts on `ready` and stops
 * on `close`. Proxies are never trusted: no route's behaviour depends on X-Forwarded-* headers.
 * The routes are plugins (`*-routes.ts`, `miner-threshold-route.ts`), each given only the
 * services it uses.
 */
export async function buildApiServer(
  input: ApiOptionsInput,
  modules: ApiServerModules,
): Promise<FastifyInstance> {
  const options = parseApiOptions(input);
  const clock = modules.clock ?? Date.now;
  const logger = modules.logger.child({ module: 'api' });
  const services = buildServices(options, modules, logger, clock);

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request lines would flood the log; counters belong in /metrics.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // fastify's default (100) matches no route for a longer parameter: an integrated address.
    routerOptions: { maxParamLength: MAX_ADDRESS_PARAM_LENGTH },
    trustProxy: false,
    return503OnClosing: true,
  });
  app.decorate('pool', services);
  services.connectionCaps.attach(app.server);
  services.liveFeed.attach(app.server);
  setErrorHandlers(app, logger);
  // CORS before the rate limit: its headers are set first, so a 429 reaches a dashboard on another
  // origin as a 429 (not an opaque network error); preflights continue to the rate limit.
  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? '*' : [...options.corsOrigins],
      // POST: the threshold route, authenticated by the wallet signature in its body (no cookies).
      methods: ['GET', 'HEAD', 'POST'],
      exposedHeaders: ['Retry-After'],
      preflightContinue: true,
    });
  }
  services.rateLimit.register(app);
  if (options.dashboard) await registerDashboardFiles(app, options.staticDir ?? dashboardDir());

  const { network, health, liveFeed, metrics } = services;
  let stopTimingRpc = (): void => undefined;
  app.addHook('onReady', async () => {
    network.start();
    health.start();
    liveFeed.start();
    stopTimingRpc =
      modules.rpcCalls?.listen((service, call) =>
        metrics.observeRpc(service, call.method, call.durationMs, call.errorCode),
      ) ?? stopTimingRpc;
  });
  app.addHook('onClose', async () => {
    stopTimingRpc();
    await Promise.all([network.stop(), health.stop(), liveFeed.close()]);
  });

  registerRoutes(app, { options, services, modules, clock });
  return app;
}

/** The services behind the routes, wired to the modules; idle until started on `ready`. */
function buildServices(
  options: ApiOptions,
  modules: ApiServerModules,
  logger: Logger,
  clock: () => number,
): ApiServices {
  const elapsedClock = modules.elapsedClock ?? monotonicMs;
  const network = new NetworkInfoCache(
    { refreshMs: options.networkRefreshMs, extrasRefreshMs: options.networkExtrasRefreshMs },
    { daemon: modules.daemon, logger, clock, elapsedClock, events: modules.events },
  );
  const health = new HealthMonitor(
    {
      refreshMs: options.healthRefreshMs,
      maxDaemonAgeMs: Math.max(3 * options.networkRefreshMs, 30_000),
      maxTemplateAgeMs: options.maxTemplateAgeMs,
    },
    {
      redisProbe: modules.redisProbe,
      network,
      logger,
      clock,
      elapsedClock,
      ...(modules.walletProbe === undefined ? {} : { walletProbe: modules.walletProbe }),
      ...(modules.templateStatus === undefined ? {} : { templateStatus: modules.templateStatus }),
      ...(modules.daemonChainDistrust === undefined
        ? {}
        : { daemonChainDistrust: modules.daemonChainDistrust }),
    },
  );
  const stats = new StatsService(options, {
    ...modules.stores,
    network,
    poolInfo: modules.poolInfo,
    clock,
    ...(modules.aliasOf === undefined ? {} : { aliasOf: modules.aliasOf }),
  });
  const ipv6PrefixLength = modules.ipv6PrefixLength ?? 64;
  const rateLimit = new RequestRateLimit(options.rateLimit, ipv6PrefixLength, clock);
  const connectionCaps = new ApiConnectionCaps(
    {
      maxConnections: options.maxConnections,
      maxConnectionsPerPeer: options.maxConnectionsPerPeer,
      exemptIps: options.rateLimit.exemptIps,
      ipv6PrefixLength,
    },
    modules.floodDrops === undefined ? {} : { floodDrops: modules.floodDrops },
  );
  const floodDrops = modules.floodDrops;
  const liveFeed = new LiveFeed(options, {
    allowConnection: (ip) => rateLimit.allows(ip),
    ...(floodDrops === undefined ? {} : { onRefusal: (peer: string) => floodDrops.noteRefusal(peer) }),
    events: modules.events,
    hashrate: modules.stores.hashrate,
    logger,
    clock,
    ...(modules.ipv6PrefixLength === undefined ? {} : { ipv6PrefixLength: modules.ipv6PrefixLength }),
  });
  const metrics =
    modules.metrics ??
    createPoolMetrics(
      {
        ...modules.metricsSources,
        liveFeedClients: () => liveFeed.metrics().clients,
        apiRefusals: () => refusalsOf(rateLimit, liveFeed, connectionCaps),
        apiFloodDropped: () => modules.floodDrops?.dropping() ?? 0,
        dependencies: async () => dependenciesOf(await health.check()),
        daemonChain: () => daemonChainOf(network.info()),
        lastShareMs: () => modules.stores.hashrate.poolLastShareMs(),
      },
      modules.events,
    );
  return { stats, network, health, liveFeed, metrics, rateLimit, connectionCaps };
}

/** The API's refusals by reason, as /metrics counts them. */
function refusalsOf(
  rateLimit: RequestRateLimit,
  liveFeed: LiveFeed,
  connectionCaps: ApiConnectionCaps,
): Record<string, number> {
  const feed = liveFeed.metrics();
  return {
    'connections-full': connectionCaps.refusedFull,
    'connections-per-peer': connectionCaps.refusedPerPeer,
    'rate-limited': rateLimit.refused,
    'feed-full': feed.refusedFull,
    'feed-per-peer': feed.refusedPeer,
    'feed-bad-requests': feed.closedBadRequests,
    'feed-slow-reader': feed.droppedSlow,
    'feed-unresponsive': feed.droppedUnresponsive,
  };
}

function dependenciesOf(health: HealthView): DependencySnapshot {
  const { redis, daemon, wallet } = health.checks;
  return {
    redis: redis.status === 'ok',
    daemon: daemon.status === 'ok',
    wallet: wallet.status === 'not-configured' ? null : wallet.status === 'ok',
  };
}

function daemonChainOf(info: DaemonInfo | null): DaemonChainSnapshot | null {
  if (info === null) return null;
  return {
    height: info.height,
    knownHeight: info.last_known_block_index + 1,
    peers: info.outgoing_connections_count + info.incoming_connections_count,
  };
}

/** Every error leaves as `{ error: { code, message } }` with the code's status (api-errors.ts). */
function setErrorHandlers(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const apiError = toApiError(error, logger);
    return reply.status(apiError.status).send(errorReply(apiError));
  });
  app.setNotFoundHandler((_request, reply) => {
    const apiError = new ApiError('NOT_FOUND');
    return reply.status(apiError.status).send(errorReply(apiError));
  });
}

/** A thrown error as the API code it leaves as; anything unexpected is logged and INTERNAL. */
function toApiError(error: FastifyError | Error, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) return new ApiError('BAD_REQUEST', error.message);
  if (error instanceof StoreError && error.code === 'STORE_UNAVAILABLE')
    return new ApiError('STORE_UNAVAILABLE');
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return clientErrorOf(status, error.message);
  logger.error({ err: error }, 'api request failed');
  return new ApiError('INTERNAL');
}

/** A 4xx fastify raised itself (before a handler ran) as the code of the same status. */
function clientErrorOf(status: number, detail: string): ApiError {
  if (status === 404) return new ApiError('NOT_FOUND');
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return new ApiError('BAD_REQUEST', detail);
}

/** The route plugins, each given the services and modules it uses; classic ones only if configured. */
function registerRoutes(
  app: FastifyInstance,
  context: {
    readonly options: ApiOptions;
    readonly services: ApiServices;
    readonly modules: ApiServerModules;
    readonly clock: () => number;
  },
): void {
  const { options, services, modules, clock } = context;
  registerPoolRoutes(app, services);
  registerMinerRoutes(app, services);
  registerExportRoutes(app, { accounts: modules.stores.accounts, coin: modules.poolInfo.coin });
  registerMinerThresholdRoute(app, {
    thresholds: modules.stores.thresholds,
    poolInfo: modules.poolInfo,
    clock,
    maxSignatureChecksPerSecond: options.maxSignatureChecksPerSecond,
  });
  registerMonitoringRoutes(app, services);
  registerAdminRoutes(app, {
    adminToken: modules.adminToken,
    liveFeed: services.liveFeed,
    clock,
    ...(modules.activeBans === undefined ? {} : { activeBans: modules.activeBans }),
    ...(modules.adminCounters === undefined ? {} : { adminCounters: modules.adminCounters }),
  });
  if (options.classicApi) {
    registerClassicRoutes(app, {
      ...services,
      options,
      stores: modules.stores,
      poolInfo: modules.poolInfo,
      clock,
    });
  }
}
