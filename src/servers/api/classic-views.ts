import type { z } from 'zod';
import type { ApiOptions } from '../../config/api-schema.js';
import type { PoolBlock } from '../../store/shares/pool-blocks-reader.js';
import type { ApiStores } from './api-context.js';
import type { classicStatsAddressSchema, classicStatsSchema } from './api-schemas.js';
import type { MinerPaymentView, PaymentBatchView } from './miner-accounts.js';
import { MAX_ACCOUNT_ROWS } from './miner-accounts.js';
import type { NetworkInfoCache } from './network-info.js';
import type { PoolInfo } from './pool-info.js';
import type { ChartView, MinerView, StatsService } from './stats-service.js';

/**
 * The replies of the classic cryptonote-nodejs-pool API (classic-routes.ts), built from the same
 * services as the native routes. Shapes follow that API: flat [member, score, ...] lists of
 * colon-joined members, numbers rather than strings, times in seconds, `{"error":"Not found"}` for
 * an unknown miner; API.md documents them field by field.
 */

/** Rows per classic list (the classic default of `api.blocks` / `api.payments`). */
const CLASSIC_ROWS = 30;

export interface ClassicViewModules {
  readonly options: ApiOptions;
  readonly stats: StatsService;
  readonly stores: ApiStores;
  readonly network: NetworkInfoCache;
  readonly poolInfo: PoolInfo;
  readonly clock: () => number;
}

export type ClassicStats = z.infer<typeof classicStatsSchema>;
/** `/stats` but its `miner` part: the same for every viewer. */
export type ClassicPoolStats = Omit<ClassicStats, 'miner'>;
export type ClassicStatsAddress = z.infer<typeof classicStatsAddressSchema>;
/** `[member, score, member, score, ...]`, as the classic API sent its Redis sorted sets. */
export type ClassicZset = (string | number)[];

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
  const orphaned = block.status === 'orphaned' || block.orphanedAfterCredit ? 1 : 0;
  return [...head, orphaned, (block.rewardAtomic ?? 0n).toString()].join(':');
}

function classicChart(points: ChartView['points']): number[][] {
  return points.map((point) => [seconds(point.startMs), Math.round(point.hashrate), 1]);
}

function zset(entries: readonly { member: string; score: number }[]): ClassicZset {
  return entries.flatMap((entry) => [entry.member, entry.score]);
}

function blocksZset(blocks: readonly PoolBlock[]): ClassicZset {
  return zset(blocks.map((block) => ({ member: classicBlockMember(block), score: block.height })));
}

/** A payout batch: `tx:amount:fee:mixin(0):recipients`. */
function batchesZset(batches: readonly PaymentBatchView[]): ClassicZset {
  return zset(
    batches.map((batch) => ({
      member: [batch.transactionHash, batch.amountAtomic, batch.feeAtomic, 0, batch.recipients].join(':'),
      score: seconds(batch.timestampMs),
    })),
  );
}

/** One miner's payment: `tx:amount:fee:mixin(0)`. */
/** A miner's payments as the store reads them, or as the miner view shows them (amounts as strings). */
type ClassicMinerPayment = Pick<
  MinerPaymentView | MinerView['payments'][number],
  'transactionHash' | 'amountAtomic' | 'networkFeeAtomic' | 'timestampMs'
>;

function minerPaymentsZset(payments: readonly ClassicMinerPayment[]): ClassicZset {
  return zset(
    payments.map((payment) => ({
      member: [payment.transactionHash, payment.amountAtomic, payment.networkFeeAtomic, 0].join(':'),
      score: seconds(payment.timestampMs),
    })),
  );
}

function classicConfig(options: ApiOptions, poolInfo: PoolInfo): ClassicStats['config'] {
  return {
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
  };
}

/**
 * `/stats` and `/live_stats`: the pool part (`pool`, read now unless given, e.g. shared by the
 * waiters one feed tick released) and `miner` for `address`.
 */
export async function classicStats(
  modules: ClassicViewModules,
  address: string | undefined,
  pool: Promise<ClassicPoolStats> = classicPoolStats(modules),
): Promise<ClassicStats> {
  const [shared, miner] = await Promise.all([pool, classicMiner(modules, address)]);
  return { ...shared, miner };
}

/** `/stats`' `miner`: the miner's hashrate for `address`, empty without one. */
async function classicMiner(
  modules: ClassicViewModules,
  address: string | undefined,
): Promise<Record<string, number>> {
  if (address === undefined) return {};
  const rate = await modules.stores.hashrate.minerHashrate(
    address,
    modules.clock(),
    modules.options.hashrateWindowMs,
  );
  return { hashrate: Math.round(rate) };
}

/** `/stats` without `miner`: the pool, the network, the last block, the chart. */
export async function classicPoolStats(modules: ClassicViewModules): Promise<ClassicPoolStats> {
  const { options, stats, stores, network, poolInfo } = modules;
  const [pool, blocks, batches, sentBatches, chart] = await Promise.all([
    stats.poolStats(),
    stores.blocks.list({ offset: 0, limit: CLASSIC_ROWS }),
    stores.accounts === null ? [] : stores.accounts.listBatches({ offset: 0, limit: CLASSIC_ROWS }),
    stores.accounts === null ? 0 : stores.accounts.countSentBatches(),
    stats.poolChart(),
  ]);
  const info = network.info();
  const lastBlockFound = pool.pool.lastBlock === null ? '0' : String(pool.pool.lastBlock.timestampMs);
  return {
    config: classicConfig(options, poolInfo),
    pool: {
      stats: { lastBlockFound },
      blocks: blocksZset(blocks),
      totalBlocks: pool.pool.blocksFound,
      payments: batchesZset(batches),
      totalPayments: sentBatches,
      totalMinersPaid: batches.reduce((sum, batch) => sum + batch.recipients, 0),
      miners: pool.pool.miners,
      workers: pool.pool.workers,
      hashrate: Math.round(pool.pool.hashrate),
      roundHashes: Number(pool.pool.round.totalDifficulty),
      roundScore: Number(pool.pool.round.totalDifficulty),
      lastBlockFound,
      currentEffort: pool.pool.currentEffort,
      luck: pool.pool.luck.meanEffortPercent,
    },
    // As the classic pool gave them: get_info's height (blocks in the chain, the height being
    // mined; its getlastblockheader fallback adds 1) and lastblock the top block, one less.
    network: { difficulty: info?.difficulty ?? 0, height: info?.height ?? 0 },
    lastblock: {
      difficulty: info?.last_block_difficulty ?? 0,
      height: info === null ? 0 : info.height - 1,
      timestamp: info?.last_block_timestamp ?? 0,
      reward: info?.last_block_reward ?? 0,
      hash: info?.top_block_hash ?? '',
    },
    charts: { hashrate: classicChart(chart.points) },
  };
}

/** `/stats_address`: one miner's balance, payments, chart and workers, or `{ error: 'Not found' }`. */
export async function classicStatsAddress(
  modules: ClassicViewModules,
  address: string | undefined,
): Promise<ClassicStatsAddress> {
  if (address === undefined) return { error: 'Not found' };
  // The miner's view reads its totals, round part, balance, payments, hashrate buckets and the
  // charted workers' buckets; only the workers' totals are read after it (each key once).
  const record = await modules.stats.minerWithWorkerCharts(address, CLASSIC_ROWS);
  if (record === null) return { error: 'Not found' };
  const { view: miner, workerCharts } = record;
  const workerNames = miner.workers.map((worker) => worker.name);
  const workerHashes = await modules.stores.ledger.getWorkerShareTotals(address, workerNames);
  return {
    stats: {
      hashes: miner.submitted.totalDifficulty,
      lastShare: String(seconds(miner.lastShareMs ?? 0)),
      balance: miner.balance?.unlockedAtomic ?? '0',
      paid: miner.balance?.paidAtomic ?? '0',
      hashrate: Math.round(miner.hashrate),
      roundHashes: Number(miner.submitted.roundDifficulty),
    },
    payments: minerPaymentsZset(miner.payments),
    charts: {
      hashrate: classicChart(miner.chart.points),
      // fromEntries: a worker may be named "__proto__", which must stay a key of its own.
      worker_hashrate: Object.fromEntries(
        workerCharts.map((points, index) => [miner.workers[index]!.name, classicChart(points)]),
      ),
    },
    workers: miner.workers.map((worker) => ({
      name: worker.name,
      hashrate: Math.round(worker.hashrate),
      lastShare: seconds(worker.lastShareMs),
      hashes: Number(workerHashes.get(worker.name) ?? 0n),
      offline: worker.offline,
    })),
  };
}

/**
 * `/get_payments`: the pool's payout batches, or `address`'s payments, sent before `beforeSec`
 * (newest first, at most one classic list); empty without the balances store. The batches are
 * read from `beforeSec` down, so a time older than the newest MAX_ACCOUNT_ROWS batches still
 * answers. A miner's payments are a list without a time index, but mark_sent trims it to
 * paymentsMaxLength (1,000 = MAX_ACCOUNT_ROWS), so reading its newest MAX_ACCOUNT_ROWS reads all
 * of it and filtering afterwards misses nothing.
 */
export async function classicPayments(
  stores: ApiStores,
  beforeSec: number,
  address: string | undefined,
): Promise<ClassicZset> {
  const accounts = stores.accounts;
  if (accounts === null) return [];
  if (address !== undefined) {
    const rows = await accounts.listPayments(address, { offset: 0, limit: MAX_ACCOUNT_ROWS });
    const before = rows.filter((row) => seconds(row.timestampMs) < beforeSec);
    return minerPaymentsZset(before.slice(0, CLASSIC_ROWS));
  }
  // seconds(t) < beforeSec exactly when t < beforeSec * 1000 (whole seconds).
  return batchesZset(await accounts.listBatchesBefore(beforeSec * 1000, CLASSIC_ROWS));
}

/** `/get_blocks`: the pool's blocks, highest first, below `height` when given. */
export async function classicBlocks(stores: ApiStores, height: number | undefined): Promise<ClassicZset> {
  const blocks = await stores.blocks.list({ offset: 0, limit: CLASSIC_ROWS }, height);
  return blocksZset(blocks);
}
