import type { FastifyInstance } from 'fastify';
import { assertAdmin } from './admin-auth.js';
import { ApiError } from './api-errors.js';
import { adminOverviewSchema, replySchemas } from './api-schemas.js';
import type { LiveFeed } from './live-feed.js';

export interface AdminRouteModules {
  /** null disables the admin routes (ADMIN_DISABLED). */
  readonly adminToken: string | null;
  readonly liveFeed: LiveFeed;
  readonly clock: () => number;
  /** Active bans (a count: the API never shows an IP); absent: null. */
  readonly activeBans?: () => number | Promise<number>;
  /** Extra counters for the overview (e.g. PoolBackend.metrics() numbers); absent: none. */
  readonly adminCounters?: () => Record<string, number>;
}

/** /api/admin/overview behind the bearer token, and every other /api/admin/* path behind it too. */
export function registerAdminRoutes(app: FastifyInstance, modules: AdminRouteModules): void {
  const { adminToken, liveFeed, clock } = modules;

  app.get(
    '/api/admin/overview',
    {
      schema: { response: replySchemas(adminOverviewSchema) },
      onRequest: async (request) => assertAdmin(adminToken, request.headers.authorization),
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
    assertAdmin(adminToken, request.headers.authorization);
    throw new ApiError('NOT_FOUND');
  });
}
