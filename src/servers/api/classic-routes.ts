import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PoolBlock } from '../../store/pool-blocks-reader.js';
import type { ApiStores } from './api-context.js';
import { ApiError } from './api-errors.js';
import type { ApiOptions } from './api-options.js';
import {
  classicStatsAddressSchema,
  classicStatsSchema,
  classicZsetSchema,
  errorReplySchema,
  jsonSchema,
} from './api-schemas.js';
import type { LiveFeed } from './live-feed.js';
import { MAX_ACCOUNT_ROWS } from './miner-accounts.js';
import type { NetworkInfoCache } from './network-info.js';
import type { PoolInfo } from './pool-info.js';
import type { ChartView, StatsService } from './stats-service.js';

/**
 * The read endpoints of the classic cryptonote-nodejs-pool API, so an existing front end keeps
 * working: /stats, /live_stats (long poll: answers at the next feed tick), /stats_address,
 * /get_payments, /get_blocks. Shapes follow that API (flat [member, score, ...] lists of
 * colon-joined members, numbers rather than strings, `{"error":"Not found"}` for an unknown miner);
 * they are documented field by field in API.md. Only reads: no classic write endpoint exists here.
 */

/** Rows per classic list (the classic default of `api.blocks` / `api.payments`). */
const CLASSIC_ROWS = 30;

export interface ClassicRouteModules {
  readonly options: ApiOptions;
  readonly stats: StatsService;
  readonly liveFeed: LiveFeed;
  readonly stores: ApiStores;
  readonly network: NetworkInfoCache;
  readonly poolInfo: PoolInfo;
  readonly clock: () => number;
}

type ClassicStats = z.infer<typeof classicStatsSchema>;
type ClassicStatsAddress = z.infer<typeof classicStatsAddressSchema>;

const addressQuery = z.object({ address: z.string().min(1).max(256).optional() });
const paymentsQuery = z.object({
  time: z.number().int().min(0).optional(),
  address: z.string().min(1).max(256).optional(),
});
const blocksQuery = z.object({ height: z.number().int().min(0).optional() });

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** `type:login:hash:time:difficulty:shares:score` (pending) or `...:shares:orphaned:reward`. */
function classicBlockMember(block: PoolBlock): string {
  const type = block.solo ? 'solo' : 'prop';
  const shares =
    block.round === null ? String(block.shareDifficulty) : block.round.totalDifficulty.toString();
  const head = [
    type,
    block.finderAddress,
    block.hash,
    seconds(block.timestampMs),
    block.networkDifficulty,
    shares,
  ];
  if (block.status === 'pending') return [...head, shares].join(':');
  const orphaned = block.status === 'orphaned' ? 1 : 0;
  return [...head, orphaned, (block.rewardAtomic ?? 0n).toString()].join(':');
}

function classicChart(chart: ChartView): number[][] {
  return chart.points.map((point) => [seconds(point.startMs), Math.round(point.hashrate), 1]);
}

function zset(entries: readonly { member: string; score: number }[]): (string | number)[] {
  return entries.flatMap((entry) => [entry.member, entry.score]);
}

export function registerClassicRoutes(app: FastifyInstance, modules: ClassicRouteModules): void {
  const { options, stats, stores, network, poolInfo, liveFeed } = modules;
  const errors = { '4xx': jsonSchema(errorReplySchema), '5xx': jsonSchema(errorReplySchema) };

  const classicStats = async (address: string | undefined): Promise<ClassicStats> => {
    const [pool, blocks, batches, chart] = await Promise.all([
      stats.poolStats(),
      stores.blocks.list({ offset: 0, limit: CLASSIC_ROWS }),
      stores.accounts === null ? [] : stores.accounts.listBatches({ offset: 0, limit: CLASSIC_ROWS }),
      stats.poolChart(),
    ]);
    const info = network.info();
    const lastBlockFound = pool.pool.lastBlock === null ? '0' : String(pool.pool.lastBlock.timestampMs);
    const miner: Record<string, number> = {};
    if (address !== undefined) {
      miner['hashrate'] = Math.round(
        await stores.hashrate.minerHashrate(address, modules.clock(), options.hashrateWindowMs),
      );
    }
    return {
      config: {
        ports: poolInfo.ports.map((port) => ({
          port: port.port,
          difficulty: port.difficulty,
          desc: port.description,
          ssl: port.tls,
        })),
        hashrateWindow: seconds(options.hashrateWindowMs),
        fee: poolInfo.payments.feePercent,
        coin: poolInfo.name,
        coinUnits: 10 ** poolInfo.coin.decimals,
        coinDecimalPlaces: poolInfo.coin.decimals,
        coinDifficultyTarget: poolInfo.coin.blockTargetSeconds,
        symbol: poolInfo.coin.symbol,
        depth: poolInfo.payments.unlockDepth,
        version: poolInfo.version,
        paymentsInterval: poolInfo.payments.intervalSeconds,
        minPaymentThreshold: Number(poolInfo.payments.minPaymentAtomic),
        transferFee: Number(poolInfo.payments.transferFeeAtomic),
        slushMiningEnabled: false,
      },
      pool: {
        stats: { lastBlockFound },
        blocks: zset(blocks.map((block) => ({ member: classicBlockMember(block), score: block.height }))),
        totalBlocks: pool.pool.blocksFound,
        payments: zset(
          batches.map((batch) => ({
            member: [batch.transactionHash, batch.amountAtomic, batch.feeAtomic, 0, batch.recipients].join(
              ':',
            ),
            score: seconds(batch.timestampMs),
          })),
        ),
        totalPayments: batches.length,
        totalMinersPaid: batches.reduce((sum, batch) => sum + batch.recipients, 0),
        miners: pool.pool.miners,
        workers: pool.pool.workers,
        hashrate: Math.round(pool.pool.hashrate),
        roundHashes: Number(pool.pool.round.totalDifficulty),
        roundScore: Number(pool.pool.round.totalDifficulty),
        lastBlockFound,
      },
      network: { difficulty: info?.difficulty ?? 0, height: info?.height ?? 0 },
      lastblock: {
        difficulty: info?.last_block_difficulty ?? 0,
        height: info === null ? 0 : info.height - 1,
        timestamp: info?.last_block_timestamp ?? 0,
        reward: info?.last_block_reward ?? 0,
        hash: info?.top_block_hash ?? '',
      },
      charts: { hashrate: classicChart(chart) },
      miner,
    };
  };

  app.get<{ Querystring: { address?: string } }>(
    '/stats',
    {
      schema: {
        querystring: jsonSchema(addressQuery, 'input'),
        response: { 200: jsonSchema(classicStatsSchema), ...errors },
      },
    },
    (request) => classicStats(request.query.address),
  );

  app.get<{ Querystring: { address?: string } }>(
    '/live_stats',
    {
      schema: {
        querystring: jsonSchema(addressQuery, 'input'),
        response: { 200: jsonSchema(classicStatsSchema), ...errors },
      },
    },
    async (request) => {
      const tick = liveFeed.waitForTick();
      if (tick === null) throw new ApiError('TOO_MANY_WAITERS');
      await tick;
      return classicStats(request.query.address);
    },
  );

  app.get<{ Querystring: { address?: string } }>(
    '/stats_address',
    {
      schema: {
        querystring: jsonSchema(addressQuery, 'input'),
        response: { 200: jsonSchema(classicStatsAddressSchema), ...errors },
      },
    },
    async (request): Promise<ClassicStatsAddress> => {
      const address = request.query.address;
      if (address === undefined) return { error: 'Not found' };
      const miner = await stats.miner(address);
      if (miner === null) return { error: 'Not found' };
      const payments =
        stores.accounts === null
          ? []
          : await stores.accounts.listPayments(address, { offset: 0, limit: CLASSIC_ROWS });
      return {
        stats: {
          hashes: '0',
          lastShare: String(seconds(miner.lastShareMs ?? 0)),
          balance: miner.balance?.unlockedAtomic ?? '0',
          paid: miner.balance?.paidAtomic ?? '0',
          hashrate: Math.round(miner.hashrate),
          roundHashes: 0,
        },
        payments: zset(
          payments.map((payment) => ({
            member: [payment.transactionHash, payment.amountAtomic, payment.networkFeeAtomic, 0].join(':'),
            score: seconds(payment.timestampMs),
          })),
        ),
        charts: {
          hashrate: classicChart(miner.chart),
        },
        workers: miner.workers.map((worker) => ({
          name: worker.name,
          hashrate: Math.round(worker.hashrate),
          lastShare: seconds(worker.lastShareMs),
          hashes: 0,
        })),
      };
    },
  );

  app.get<{ Querystring: { time?: number; address?: string } }>(
    '/get_payments',
    {
      schema: {
        querystring: jsonSchema(paymentsQuery, 'input'),
        response: { 200: jsonSchema(classicZsetSchema), ...errors },
      },
    },
    async (request) => {
      const accounts = stores.accounts;
      if (accounts === null) return [];
      const beforeSec = request.query.time ?? Number.MAX_SAFE_INTEGER;
      const page = { offset: 0, limit: MAX_ACCOUNT_ROWS };
      const address = request.query.address;
      if (address !== undefined) {
        const rows = await accounts.listPayments(address, page);
        return zset(
          rows
            .filter((row) => seconds(row.timestampMs) < beforeSec)
            .slice(0, CLASSIC_ROWS)
            .map((row) => ({
              member: [row.transactionHash, row.amountAtomic, row.networkFeeAtomic, 0].join(':'),
              score: seconds(row.timestampMs),
            })),
        );
      }
      const batches = await accounts.listBatches(page);
      return zset(
        batches
          .filter((batch) => seconds(batch.timestampMs) < beforeSec)
          .slice(0, CLASSIC_ROWS)
          .map((batch) => ({
            member: [batch.transactionHash, batch.amountAtomic, batch.feeAtomic, 0, batch.recipients].join(
              ':',
            ),
            score: seconds(batch.timestampMs),
          })),
      );
    },
  );

  app.get<{ Querystring: { height?: number } }>(
    '/get_blocks',
    {
      schema: {
        querystring: jsonSchema(blocksQuery, 'input'),
        response: { 200: jsonSchema(classicZsetSchema), ...errors },
      },
    },
    async (request) => {
      const blocks = await stores.blocks.list({ offset: 0, limit: CLASSIC_ROWS }, request.query.height);
      return zset(blocks.map((block) => ({ member: classicBlockMember(block), score: block.height })));
    },
  );
}
