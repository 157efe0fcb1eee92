import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { z } from 'zod';
import type { Logger } from '../../log/logger.js';
import { findPackageRoot } from '../../package-root.js';
import type { PoolEventBus } from '../../pool/events.js';
import { StoreError } from '../../store/store-error.js';
import { assertAdmin } from './admin-auth.js';
import type { ApiServices, ApiStores } from './api-context.js';
import { ApiError, errorReply } from './api-errors.js';
import { createPoolMetrics, type MetricsSources, type PoolMetrics } from './api-metrics.js';
import { type ApiOptionsInput, parseApiOptions } from './api-options.js';
import {
  addressParamsSchema,
  adminOverviewSchema,
  blocksPageSchema,
  chartSchema,
  errorReplySchema,
  healthSchema,
  jsonSchema,
  minerPaymentsPageSchema,
  minerSchema,
  paymentsPageSchema,
  poolStatsSchema,
} from './api-schemas.js';
import { registerClassicRoutes } from './classic-routes.js';
import { HealthMonitor } from './health-monitor.js';
import { LiveFeed } from './live-feed.js';
import { parseMinerAddress } from './miner-address.js';
import { registerMinerThresholdRoute } from './miner-threshold-route.js';
import { type NetworkDaemon, NetworkInfoCache } from './network-info.js';
import type { PoolInfo } from './pool-info.js';
import { StatsService } from './stats-service.js';

/** The web dashboard shipped with the package (`dashboard/` beside package.json): the default `staticDir`. */
export function dashboardDir(): string {
  return join(findPackageRoot(import.meta.url), 'dashboard');
}

/** uPlot's browser build (ESM + CSS), which the dashboard loads from `/vendor/uplot/`. */
function uplotBrowserDir(): string {
  return dirname(createRequire(import.meta.url).resolve('uplot'));
}

/** Requests are GETs, or a small signed JSON body: a body this large is already abuse. */
const BODY_LIMIT_BYTES = 16 * 1024;
const MAX_PAGE_LIMIT = 100;

export interface ApiServerModules {
  /** Pings Redis for /health (e.g. () => redis.ping()). */
  readonly redisProbe: () => Promise<unknown>;
  readonly stores: ApiStores;
  readonly daemon: NetworkDaemon;
  readonly poolInfo: PoolInfo;
  readonly events: PoolEventBus;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** From adminTokenFromEnv(process.env) at the composition root; null disables admin routes. */
  readonly adminToken: string | null;
  readonly metricsSources?: MetricsSources;
  /** A registry shared with the rest of the process (to time RPC calls); built here if absent. */
  readonly metrics?: PoolMetrics;
  readonly walletProbe?: () => Promise<unknown>;
  readonly templateStatus?: () => { readonly templateAgeMs: number | undefined };
  readonly aliasOf?: (address: string) => Promise<string | null>;
  /** Active bans (a count: the API never shows an IP). */
  readonly activeBans?: () => number | Promise<number>;
  /** Extra counters for /api/admin/overview (e.g. PoolBackend.metrics() numbers). */
  readonly adminCounters?: () => Record<string, number>;
}

const pageQuery = z.strictObject({
  page: z.number().int().min(1).max(10_000).default(1),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
});
type PageQuery = z.infer<typeof pageQuery>;

function errorResponses(): Record<string, unknown> {
  const error = jsonSchema(errorReplySchema);
  return { '4xx': error, '5xx': error };
}

function toApiError(error: FastifyError | Error, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation !== undefined) return new ApiError('BAD_REQUEST', error.message);
  if (error instanceof StoreError && error.code === 'STORE_UNAVAILABLE')
    return new ApiError('STORE_UNAVAILABLE');
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return status === 404 ? new ApiError('NOT_FOUND') : new ApiError('BAD_REQUEST', error.message);
  }
  logger.error({ err: error }, 'api request failed');
  return new ApiError('INTERNAL');
}

/**
 * Builds the HTTP API (fastify) without listening: the caller listens (on options.host/port) and
 * tests inject requests. The live feed's WebSocket attaches to the instance's server and works once
 * it listens. Background work (daemon poll, wallet probe, feed ticks) starts on `ready` and stops
 * on `close`. Proxies are never trusted: no route's behaviour depends on X-Forwarded-* headers.
 */
export async function buildApiServer(
  input: ApiOptionsInput,
  modules: ApiServerModules,
): Promise<FastifyInstance> {
  const options = parseApiOptions(input);
  const clock = modules.clock ?? Date.now;
  const logger = modules.logger.child({ module: 'api' });
  const network = new NetworkInfoCache(
    { refreshMs: options.networkRefreshMs, extrasRefreshMs: options.networkExtrasRefreshMs },
    { daemon: modules.daemon, logger, clock, events: modules.events },
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
      ...(modules.walletProbe === undefined ? {} : { walletProbe: modules.walletProbe }),
      ...(modules.templateStatus === undefined ? {} : { templateStatus: modules.templateStatus }),
    },
  );
  const stats = new StatsService(options, {
    ...modules.stores,
    network,
    poolInfo: modules.poolInfo,
    clock,
    ...(modules.aliasOf === undefined ? {} : { aliasOf: modules.aliasOf }),
  });
  const liveFeed = new LiveFeed(options, {
    events: modules.events,
    hashrate: modules.stores.hashrate,
    logger,
    clock,
  });
  const metrics =
    modules.metrics ??
    createPoolMetrics(
      { ...modules.metricsSources, liveFeedClients: () => liveFeed.metrics().clients },
      modules.events,
    );

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request lines would flood the log; counters belong in /metrics.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: false,
    return503OnClosing: true,
  });
  app.decorate('pool', { stats, network, health, liveFeed, metrics } satisfies ApiServices);
  liveFeed.attach(app.server);

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const apiError = toApiError(error, logger);
    return reply.status(apiError.status).send(errorReply(apiError));
  });
  app.setNotFoundHandler((_request, reply) => {
    const apiError = new ApiError('NOT_FOUND');
    return reply.status(apiError.status).send(errorReply(apiError));
  });

  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? '*' : [...options.corsOrigins],
      // POST: the threshold route, authenticated by the wallet signature in its body (no cookies).
      methods: ['GET', 'HEAD', 'POST'],
    });
  }
  if (options.staticDir !== null) {
    await app.register(fastifyStatic, { root: options.staticDir, prefix: '/', index: 'index.html' });
    // The dashboard's charting library, served from node_modules (never a CDN): a second root.
    await app.register(fastifyStatic, {
      root: uplotBrowserDir(),
      prefix: '/vendor/uplot/',
      decorateReply: false,
    });
  }

  app.addHook('onReady', async () => {
    network.start();
    health.start();
    liveFeed.start();
  });
  app.addHook('onClose', async () => {
    await Promise.all([network.stop(), health.stop(), liveFeed.close()]);
  });

  const json = (schema: z.ZodType) => ({ 200: jsonSchema(schema), ...errorResponses() });

  app.get('/api/stats', { schema: { response: json(poolStatsSchema) } }, () => stats.poolStats());

  app.get<{ Querystring: { days: number } }>(
    '/api/stats/chart',
    {
      schema: {
        querystring: jsonSchema(z.strictObject({ days: z.number().int().min(1).max(7).default(1) }), 'input'),
        response: json(chartSchema),
      },
    },
    (request) => stats.poolChart(request.query.days * 86_400_000),
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/blocks',
    { schema: { querystring: jsonSchema(pageQuery, 'input'), response: json(blocksPageSchema) } },
    (request) => stats.blocksPage(request.query.page, request.query.limit),
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/payments',
    { schema: { querystring: jsonSchema(pageQuery, 'input'), response: json(paymentsPageSchema) } },
    (request) => stats.paymentsPage(request.query.page, request.query.limit),
  );

  app.get<{ Params: { address: string } }>(
    '/api/miners/:address',
    { schema: { params: jsonSchema(addressParamsSchema, 'input'), response: json(minerSchema) } },
    async (request) => {
      const address = parseMinerAddress(request.params.address);
      const miner = await stats.miner(address);
      if (miner === null) throw new ApiError('NOT_FOUND', 'the pool has no record of this address');
      return miner;
    },
  );

  app.get<{ Params: { address: string }; Querystring: PageQuery }>(
    '/api/miners/:address/payments',
    {
      schema: {
        params: jsonSchema(addressParamsSchema, 'input'),
        querystring: jsonSchema(pageQuery, 'input'),
        response: json(minerPaymentsPageSchema),
      },
    },
    (request) =>
      stats.minerPaymentsPage(
        parseMinerAddress(request.params.address),
        request.query.page,
        request.query.limit,
      ),
  );

  registerMinerThresholdRoute(app, {
    thresholds: modules.stores.thresholds,
    poolInfo: modules.poolInfo,
    clock,
    maxSignatureChecksPerSecond: options.maxSignatureChecksPerSecond,
  });

  app.get(
    '/health',
    { schema: { response: { 200: jsonSchema(healthSchema), 503: jsonSchema(healthSchema) } } },
    async (_request, reply) => {
      const view = await health.check();
      return reply.status(view.status === 'failing' ? 503 : 200).send(view);
    },
  );

  app.get('/metrics', { schema: { response: { 200: { type: 'string' } } } }, async (_request, reply) => {
    const text = await metrics.render();
    return reply.type(metrics.contentType).send(text);
  });

  app.get(
    '/api/admin/overview',
    {
      schema: { response: json(adminOverviewSchema) },
      onRequest: async (request) => assertAdmin(modules.adminToken, request.headers.authorization),
    },
    async () => ({
      counters: modules.adminCounters?.() ?? {},
      activeBans: modules.activeBans === undefined ? null : await modules.activeBans(),
      liveFeedClients: liveFeed.metrics().clients,
      timestampMs: clock(),
    }),
  );
  // Any other admin path: authorization first, so an unauthenticated caller cannot map routes.
  app.get('/api/admin/*', async (request) => {
    assertAdmin(modules.adminToken, request.headers.authorization);
    throw new ApiError('NOT_FOUND');
  });

  if (options.classicApi)
    registerClassicRoutes(app, {
      options,
      stats,
      liveFeed,
      stores: modules.stores,
      network,
      poolInfo: modules.poolInfo,
      clock,
    });

  return app;
}
