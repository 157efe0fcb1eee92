import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-errors.js';
import {
  addressParamsSchema,
  jsonSchema,
  minerPaymentsPageSchema,
  minerSchema,
  minerWorkersSchema,
  type PageQuery,
  pageQuerySchema,
  replySchemas,
} from './api-schemas.js';
import { parseMinerAddress } from './miner-address.js';
import type { StatsService } from './stats-service.js';

export interface MinerRouteModules {
  readonly stats: StatsService;
}

/**
 * One miner's reads: /api/miners/:address, /api/miners/:address/workers and
 * /api/miners/:address/payments. An address that does not decode is INVALID_ADDRESS; one the pool
 * has no record of, NOT_FOUND (its workers and payments: empty lists). The signed threshold POST
 * is its own plugin (miner-threshold-route.ts).
 */
export function registerMinerRoutes(app: FastifyInstance, modules: MinerRouteModules): void {
  const { stats } = modules;

  app.get<{ Params: { address: string } }>(
    '/api/miners/:address',
    { schema: { params: jsonSchema(addressParamsSchema, 'input'), response: replySchemas(minerSchema) } },
    async (request) => {
      const address = parseMinerAddress(request.params.address);
      const miner = await stats.miner(address);
      if (miner === null) throw new ApiError('NOT_FOUND', 'the pool has no record of this address');
      return miner;
    },
  );

  app.get<{ Params: { address: string } }>(
    '/api/miners/:address/workers',
    {
      schema: {
        params: jsonSchema(addressParamsSchema, 'input'),
        response: replySchemas(minerWorkersSchema),
      },
    },
    (request) => stats.minerWorkers(parseMinerAddress(request.params.address)),
  );

  app.get<{ Params: { address: string }; Querystring: PageQuery }>(
    '/api/miners/:address/payments',
    {
      schema: {
        params: jsonSchema(addressParamsSchema, 'input'),
        querystring: jsonSchema(pageQuerySchema, 'input'),
        response: replySchemas(minerPaymentsPageSchema),
      },
    },
    (request) =>
      stats.minerPaymentsPage(
        parseMinerAddress(request.params.address),
        request.query.page,
        request.query.limit,
      ),
  );
}
