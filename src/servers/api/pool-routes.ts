import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from './api-errors.js';
import {
  blocksPageSchema,
  chartSchema,
  jsonSchema,
  luckSchema,
  type PageQuery,
  pageQuerySchema,
  paymentsPageSchema,
  poolStatsSchema,
  replySchemas,
} from './api-schemas.js';
import { MAX_ACCOUNT_ROWS } from './miner-accounts.js';
import { LUCK_DEFAULT_BLOCKS, LUCK_MAX_BLOCKS } from './pool-luck.js';
import type { StatsService } from './stats-service.js';

export interface PoolRouteModules {
  readonly stats: StatsService;
}

const chartQuerySchema = z.strictObject({ days: z.number().int().min(1).max(7).default(1) });
const luckQuerySchema = z.strictObject({
  blocks: z.number().int().min(1).max(LUCK_MAX_BLOCKS).default(LUCK_DEFAULT_BLOCKS),
});

/** The pool-wide reads: /api/stats, /api/stats/chart, /api/luck, /api/blocks, /api/payments (API.md "Routes"). */
export function registerPoolRoutes(app: FastifyInstance, modules: PoolRouteModules): void {
  const { stats } = modules;

  app.get('/api/stats', { schema: { response: replySchemas(poolStatsSchema) } }, () => stats.poolStats());

  app.get<{ Querystring: { days: number } }>(
    '/api/stats/chart',
    { schema: { querystring: jsonSchema(chartQuerySchema, 'input'), response: replySchemas(chartSchema) } },
    (request) => stats.poolChart(request.query.days * 86_400_000),
  );

  app.get<{ Querystring: { blocks: number } }>(
    '/api/luck',
    { schema: { querystring: jsonSchema(luckQuerySchema, 'input'), response: replySchemas(luckSchema) } },
    (request) => stats.luck(request.query.blocks),
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/blocks',
    {
      schema: { querystring: jsonSchema(pageQuerySchema, 'input'), response: replySchemas(blocksPageSchema) },
    },
    (request) => stats.blocksPage(request.query.page, request.query.limit),
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/payments',
    {
      schema: {
        querystring: jsonSchema(pageQuerySchema, 'input'),
        response: replySchemas(paymentsPageSchema),
      },
    },
    (request) => {
      const { page, limit } = request.query;
      // Only the newest MAX_ACCOUNT_ROWS sent batches are listed: a later page is refused, not read.
      if (page * limit > MAX_ACCOUNT_ROWS)
        throw new ApiError('BAD_REQUEST', `page * limit must be at most ${MAX_ACCOUNT_ROWS}`);
      return stats.paymentsPage(page, limit);
    },
  );
}
