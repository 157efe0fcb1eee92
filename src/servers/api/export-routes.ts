import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { addressParamsSchema, errorReplySchema, jsonSchema, replySchemas } from './api-schemas.js';
import { MAX_ACCOUNT_ROWS, type MinerAccountsReader } from './miner-accounts.js';
import { parseMinerAddress } from './miner-address.js';
import {
  type CoinUnits,
  type ExportKind,
  type ExportRequest,
  exportCsv,
  paymentsExport,
  paymentsExportSchema,
  rewardsExport,
  rewardsExportSchema,
} from './miner-exports.js';

export interface ExportRouteModules {
  readonly accounts: MinerAccountsReader | null;
  readonly coin: CoinUnits;
}

/** Rows of one export page; the newest MAX_ACCOUNT_ROWS rows are all an export reaches. */
const exportQuerySchema = z.strictObject({
  page: z.number().int().min(1).max(MAX_ACCOUNT_ROWS).default(1),
  limit: z.number().int().min(1).max(MAX_ACCOUNT_ROWS).default(MAX_ACCOUNT_ROWS),
});
type ExportQuery = z.infer<typeof exportQuerySchema>;
type ExportRoute = { Params: { address: string }; Querystring: ExportQuery };

const EXPORTS = { payments: paymentsExport, rewards: rewardsExport } as const;
const JSON_SCHEMAS = { payments: paymentsExportSchema, rewards: rewardsExportSchema } as const;

/** `attachment; filename="fuego-payments-fire1234abcd-page1.csv"`: the address is base58, safe in a quoted name. */
function attachment(reply: FastifyReply, kind: ExportKind, request: ExportRequest, extension: string): void {
  const name = `fuego-${kind}-${request.address.slice(0, 12)}-page${request.page}.${extension}`;
  reply.header('content-disposition', `attachment; filename="${name}"`);
}

/**
 * A miner's downloads (miner-exports.ts): /api/miners/:address/{payments,rewards}.{json,csv},
 * paged by `?page=&limit=`. The address is checked before any store read (INVALID_ADDRESS).
 */
export function registerExportRoutes(app: FastifyInstance, modules: ExportRouteModules): void {
  const error = jsonSchema(errorReplySchema);
  for (const kind of ['payments', 'rewards'] as const) {
    const read = (params: { address: string }, query: ExportQuery) => {
      const request = { address: parseMinerAddress(params.address), page: query.page, limit: query.limit };
      return { request, exported: EXPORTS[kind](modules.accounts, request, modules.coin) };
    };
    const input = {
      params: jsonSchema(addressParamsSchema, 'input'),
      querystring: jsonSchema(exportQuerySchema, 'input'),
    };

    app.get<ExportRoute>(
      `/api/miners/:address/${kind}.json`,
      { schema: { ...input, response: replySchemas(JSON_SCHEMAS[kind]) } },
      async (req, reply) => {
        const { request, exported } = read(req.params, req.query);
        attachment(reply, kind, request, 'json');
        return exported;
      },
    );

    app.get<ExportRoute>(
      `/api/miners/:address/${kind}.csv`,
      { schema: { ...input, response: { '4xx': error, '5xx': error } } },
      async (req, reply) => {
        const { request, exported } = read(req.params, req.query);
        const csv = exportCsv(await exported);
        attachment(reply, kind, request, 'csv');
        return reply.type('text/csv; charset=utf-8').send(csv);
      },
    );
  }
}
