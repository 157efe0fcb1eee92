import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from './api-errors.js';
import {
  classicStatsAddressSchema,
  classicStatsSchema,
  classicZsetSchema,
  jsonSchema,
  replySchemas,
} from './api-schemas.js';
import {
  type ClassicPoolStats,
  type ClassicViewModules,
  classicBlocks,
  classicPayments,
  classicPoolStats,
  classicStats,
  classicStatsAddress,
} from './classic-views.js';
import type { LiveFeed } from './live-feed.js';
import { parseMinerAddress } from './miner-address.js';

/**
 * The read endpoints of the classic cryptonote-nodejs-pool API, so an existing front end keeps
 * working: /stats, /live_stats (long poll: answers at the next feed tick, every waiter it releases
 * with one read of the pool part), /stats_address,
 * /get_payments, /get_blocks. The replies are built in classic-views.ts. Only reads: no classic
 * write endpoint exists here.
 */

export interface ClassicRouteModules extends ClassicViewModules {
  readonly liveFeed: LiveFeed;
}

const addressQuery = z.object({ address: z.string().min(1).max(256).optional() });
const paymentsQuery = z.object({
  time: z.number().int().min(0).optional(),
  address: z.string().min(1).max(256).optional(),
});
const blocksQuery = z.object({ height: z.number().int().min(0).optional() });

export function registerClassicRoutes(app: FastifyInstance, modules: ClassicRouteModules): void {
  const { stores, liveFeed } = modules;
  // Every waiter one tick releases answers with the same pool part: read once, not once each.
  let released: { readonly tick: number; readonly pool: Promise<ClassicPoolStats> } | null = null;
  const poolAfterTick = (tick: number): Promise<ClassicPoolStats> => {
    if (released?.tick !== tick) released = { tick, pool: classicPoolStats(modules) };
    return released.pool;
  };
  const statsSchema = () => ({
    querystring: jsonSchema(addressQuery, 'input'),
    response: replySchemas(classicStatsSchema),
  });

  app.get<{ Querystring: { address?: string } }>('/stats', { schema: statsSchema() }, (request) =>
    classicStats(modules, minerAddressOf(request.query)),
  );

  app.get<{ Querystring: { address?: string } }>(
    '/live_stats',
    { schema: statsSchema() },
    async (request) => {
      const address = minerAddressOf(request.query);
      const tick = liveFeed.waitForTick(request.ip);
      if (tick === 'too-many') throw new ApiError('TOO_MANY_WAITERS');
      if (tick === 'too-many-from-peer') throw new ApiError('TOO_MANY_WAITERS_FROM_PEER');
      return classicStats(modules, address, poolAfterTick(await tick));
    },
  );

  app.get<{ Querystring: { address?: string } }>(
    '/stats_address',
    {
      schema: {
        querystring: jsonSchema(addressQuery, 'input'),
        response: replySchemas(classicStatsAddressSchema),
      },
    },
    (request) => classicStatsAddress(modules, minerAddressOf(request.query)),
  );

  app.get<{ Querystring: { time?: number; address?: string } }>(
    '/get_payments',
    {
      schema: { querystring: jsonSchema(paymentsQuery, 'input'), response: replySchemas(classicZsetSchema) },
    },
    (request) =>
      classicPayments(stores, request.query.time ?? Number.MAX_SAFE_INTEGER, minerAddressOf(request.query)),
  );

  app.get<{ Querystring: { height?: number } }>(
    '/get_blocks',
    { schema: { querystring: jsonSchema(blocksQuery, 'input'), response: replySchemas(classicZsetSchema) } },
    (request) => classicBlocks(stores, request.query.height),
  );
}

/**
 * The `address` of a classic query, decoded first: a value that is not a Fuego address answers
 * 400 INVALID_ADDRESS and never reaches a Redis key or the daemon's alias lookup.
 */
function minerAddressOf(query: { readonly address?: string }): string | undefined {
  return query.address === undefined ? undefined : parseMinerAddress(query.address);
}
