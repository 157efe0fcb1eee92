import type { z } from 'zod';
import type { ApiOptions } from '../../config/api-schema.js';
import { type ThresholdLimits, thresholdInForce } from '../../pool/payouts/miner-threshold.js';
import type { HashrateReader, WorkerHashrate } from '../../store/hashrate/hashrate-reader.js';
import type { MinerThresholdRecord } from '../../store/payments/miner-thresholds.js';
import type { RedisLedgerReader } from '../../store/shares/ledger-reader.js';
import type { PoolBlock, PoolBlocksReader } from '../../store/shares/pool-blocks-reader.js';
import type {
  blockSummarySchema,
  blocksPageSchema,
  chartSchema,
  minerPaymentsPageSchema,
  minerSchema,
  minerWorkersSchema,
  paymentsPageSchema,
  payoutThresholdSchema,
  poolStatsSchema,
} from './api-schemas.js';
import type { MinerAccountsReader, MinerPaymentView } from './miner-accounts.js';
import type { NetworkInfoCache } from './network-info.js';
import type { PoolInfo } from './pool-info.js';
import { effortPercent, effortRatio, LUCK_DEFAULT_BLOCKS, type LuckView, luckOf } from './pool-luck.js';

export type PoolStatsView = z.infer<typeof poolStatsSchema>;
export type BlockSummaryView = z.infer<typeof blockSummarySchema>;
export type BlocksPageView = z.infer<typeof blocksPageSchema>;
export type PaymentsPageView = z.infer<typeof paymentsPageSchema>;
export type MinerView = z.infer<typeof minerSchema>;
export type MinerPaymentsPageView = z.infer<typeof minerPaymentsPageSchema>;
export type MinerWorkersView = z.infer<typeof minerWorkersSchema>;
export type WorkerView = MinerView['workers'][number];
export type ChartView = z.infer<typeof chartSchema>;
export type PayoutThresholdView = z.infer<typeof payoutThresholdSchema>;

/** A miner's view and the charts of its first workers (StatsService.minerWithWorkerCharts). */
export interface MinerRecord {
  readonly view: MinerView;
  readonly workerCharts: ChartView['points'][];
}

/** Payments shown inline in /api/miners/:address. */
const MINER_INLINE_PAYMENTS = 10;

export interface StatsServiceModules {
  readonly ledger: Pick<RedisLedgerReader, 'getCurrentRoundSummary' | 'getMinerShareTotals'>;
  readonly hashrate: HashrateReader;
  readonly blocks: PoolBlocksReader;
  readonly accounts: MinerAccountsReader | null;
  readonly thresholds: { read(address: string): Promise<MinerThresholdRecord | null> };
  readonly network: NetworkInfoCache;
  readonly poolInfo: PoolInfo;
  /** Reverse alias lookup (address -> registered alias); absent: aliases are not shown. */
  readonly aliasOf?: (address: string) => Promise<string | null>;
  readonly clock: () => number;
}

function paymentView(payment: MinerPaymentView) {
  return {
    batchId: payment.batchId,
    transactionHash: payment.transactionHash,
    timestampMs: payment.timestampMs,
    amountAtomic: payment.amountAtomic.toString(),
    networkFeeAtomic: payment.networkFeeAtomic.toString(),
  };
}

/** The pool minimum and the cap of miners' own thresholds. */
export function thresholdLimitsOf(poolInfo: PoolInfo): ThresholdLimits {
  return { minAtomic: poolInfo.payments.minPaymentAtomic, maxAtomic: poolInfo.payments.maxThresholdAtomic };
}

/** A miner's stored threshold as the API shows it: what applies now, and the limits. */
export function payoutThresholdView(
  record: MinerThresholdRecord | null,
  limits: ThresholdLimits,
): PayoutThresholdView {
  const own = record?.thresholdAtomic ?? null;
  return {
    thresholdAtomic: thresholdInForce(own, limits).toString(),
    custom: own !== null,
    minimumAtomic: limits.minAtomic.toString(),
    maximumAtomic: limits.maxAtomic.toString(),
    lastTimestampSec: record?.timestampSec ?? null,
  };
}

/**
 * Builds the API's JSON views from the store readers and the cached network info. Each view is a
 * bounded number of Redis round trips, independent of the number of miners (API.md lists them).
 */
export class StatsService {
  readonly #options: ApiOptions;
  readonly #modules: StatsServiceModules;

  constructor(options: ApiOptions, modules: StatsServiceModules) {
    this.#options = options;
    this.#modules = modules;
  }

  /** Top block height known from the daemon (height - 1), or null before the first poll. */
  topHeight(): number | null {
    const info = this.#modules.network.info();
    return info === null ? null : info.height - 1;
  }

  blockView(block: PoolBlock): BlockSummaryView {
    const top = this.topHeight();
    // A credited block a deep reorg replaced shows as orphaned: its reward still shows what was credited.
    const status = block.orphanedAfterCredit ? 'orphaned' : block.status;
    const onChain = status === 'pending' || status === 'confirmed';
    // A pending block another block replaced has none: the blocks on top are built on the other one.
    const replaced = block.status === 'pending' && block.offMainChain;
    return {
      height: block.height,
      hash: block.hash,
      status,
      confirmations: top === null || !onChain ? null : replaced ? 0 : Math.max(0, top - block.height),
      timestampMs: block.timestampMs,
      networkDifficulty: block.networkDifficulty.toString(),
      effortPercent:
        block.round === null ? null : effortPercent(block.round.totalDifficulty, block.networkDifficulty),
      roundTotalDifficulty: block.round === null ? null : block.round.totalDifficulty.toString(),
      solo: block.solo,
      finderAddress: block.finderAddress,
      rewardAtomic: block.rewardAtomic === null ? null : block.rewardAtomic.toString(),
      unlockNote: block.status === 'pending' ? block.unlockNote : null,
    };
  }

  async poolStats(): Promise<PoolStatsView> {
    const { hashrate, ledger, blocks, network, poolInfo, clock } = this.#modules;
    const now = clock();
    const [rate, active, round, lastBlocks, blocksFound] = await Promise.all([
      hashrate.poolHashrate(now, this.#options.hashrateWindowMs),
      hashrate.activeCounts(now, this.#options.activeWindowMs),
      ledger.getCurrentRoundSummary(),
      blocks.list({ offset: 0, limit: LUCK_DEFAULT_BLOCKS }),
      blocks.count(),
    ]);
    const networkView = network.view();
    const networkDifficulty = networkView === null ? null : BigInt(networkView.difficulty);
    const lastBlock = lastBlocks[0];
    const payments = poolInfo.payments;
    return {
      pool: {
        name: poolInfo.name,
        hashrate: rate,
        hashrateWindowSeconds: this.#options.hashrateWindowMs / 1000,
        miners: active.miners,
        workers: active.workers,
        activeWindowSeconds: this.#options.activeWindowMs / 1000,
        round: {
          startedAtMs: round?.startedAtMs ?? null,
          totalDifficulty: (round?.totalDifficulty ?? 0n).toString(),
          shareCount: round?.shareCount ?? 0,
          effortPercent: effortPercent(round?.totalDifficulty ?? 0n, networkDifficulty),
        },
        currentEffort: effortRatio(round?.totalDifficulty ?? 0n, networkDifficulty),
        luck: luckOf(lastBlocks, LUCK_DEFAULT_BLOCKS),
        lastBlock: lastBlock === undefined ? null : this.blockView(lastBlock),
        blocksFound,
        ports: poolInfo.ports.map((port) => ({ ...port })),
        payments: {
          scheme: payments.scheme,
          pplnsWindowFactor: payments.pplnsWindowFactor,
          feePercent: payments.feePercent,
          soloFeePercent: payments.soloFeePercent,
          minPaymentAtomic: payments.minPaymentAtomic.toString(),
          maxThresholdAtomic: payments.maxThresholdAtomic.toString(),
          intervalSeconds: payments.intervalSeconds,
          unlockDepth: payments.unlockDepth,
          networkFeePaidBy: payments.networkFeePaidBy,
        },
      },
      coin: { ...poolInfo.coin },
      explorer: { ...this.#options.explorer },
      network: networkView,
      timestampMs: now,
    };
  }

  /** Luck over the last `blocks` found blocks (at most LUCK_MAX_BLOCKS: the route bounds it). */
  async luck(blocks: number): Promise<LuckView> {
    return luckOf(await this.#modules.blocks.list({ offset: 0, limit: blocks }), blocks);
  }

  async poolChart(spanMs = this.#options.poolChartSpanMs): Promise<ChartView> {
    const points = await this.#modules.hashrate.poolChart(this.#modules.clock(), spanMs);
    return { resolutionSeconds: 600, points };
  }

  async blocksPage(page: number, limit: number): Promise<BlocksPageView> {
    const blocks = await this.#modules.blocks.list({ offset: (page - 1) * limit, limit });
    return { page, limit, blocks: blocks.map((block) => this.blockView(block)) };
  }

  async paymentsPage(page: number, limit: number): Promise<PaymentsPageView> {
    const accounts = this.#modules.accounts;
    const batches =
      accounts === null ? [] : await accounts.listBatches({ offset: (page - 1) * limit, limit });
    return {
      page,
      limit,
      payments: batches.map((batch) => ({
        batchId: batch.batchId,
        transactionHash: batch.transactionHash,
        timestampMs: batch.timestampMs,
        recipients: batch.recipients,
        amountAtomic: batch.amountAtomic.toString(),
        feeAtomic: batch.feeAtomic.toString(),
      })),
    };
  }

  async minerPaymentsPage(address: string, page: number, limit: number): Promise<MinerPaymentsPageView> {
    const accounts = this.#modules.accounts;
    const rows =
      accounts === null ? [] : await accounts.listPayments(address, { offset: (page - 1) * limit, limit });
    return { page, limit, payments: rows.map(paymentView) };
  }

  /** A worker as the API shows it: `offline` once its last share is `workerOfflineMs` old. */
  workerView(worker: WorkerHashrate, nowMs: number): WorkerView {
    return { ...worker, offline: nowMs - worker.lastShareMs >= this.#options.workerOfflineMs };
  }

  /** Every tracked worker of a miner, most recent first, with the charts of the first ones. */
  async minerWorkers(address: string): Promise<MinerWorkersView> {
    const now = this.#modules.clock();
    const { workers, charts } = await this.#modules.hashrate.minerWorkersCharted(
      address,
      now,
      this.#options.hashrateWindowMs,
      this.#workerChartsOption(),
    );
    return {
      address,
      hashrateWindowSeconds: this.#options.hashrateWindowMs / 1000,
      offlineAfterSeconds: this.#options.workerOfflineMs / 1000,
      chartResolutionSeconds: this.#options.minerChartResolutionMs / 1000,
      workers: workers.map((worker, index) => ({
        ...this.workerView(worker, now),
        chart: charts[index] ?? null,
      })),
      timestampMs: now,
    };
  }

  /** The charts of the first `maxWorkerCharts` workers (the miner chart's span and resolution). */
  #workerChartsOption(count: number = this.#options.maxWorkerCharts) {
    return {
      count,
      spanMs: this.#options.minerChartSpanMs,
      resolutionMs: this.#options.minerChartResolutionMs,
    };
  }

  /**
   * null when the pool has no record of the address at all (no shares in the retention, no
   * balance, no payment, no payout threshold of their own).
   */
  async miner(address: string): Promise<MinerView | null> {
    return (await this.#minerRecord(address, MINER_INLINE_PAYMENTS, 0))?.view ?? null;
  }

  /**
   * miner() with its newest `payments` payments and the charts of its first `maxWorkerCharts`
   * workers, in their order (the classic /stats_address): every key of the miner read once.
   */
  minerWithWorkerCharts(address: string, payments: number): Promise<MinerRecord | null> {
    return this.#minerRecord(address, payments, this.#options.maxWorkerCharts);
  }

  async #minerRecord(address: string, payments: number, chartedWorkers: number): Promise<MinerRecord | null> {
    const { hashrate, accounts, thresholds, aliasOf, clock } = this.#modules;
    const now = clock();
    const window = this.#options.hashrateWindowMs;
    const charting = this.#workerChartsOption(chartedWorkers);
    const [rated, lastShareMs, { workers, charts }, balance, paid, alias, threshold, submitted] =
      await Promise.all([
        hashrate.minerHashrateAndChart(address, now, window, charting),
        hashrate.minerLastShareMs(address),
        hashrate.minerWorkersCharted(address, now, window, charting),
        accounts === null ? null : accounts.getBalance(address),
        accounts === null ? [] : accounts.listPayments(address, { offset: 0, limit: payments }),
        aliasOf === undefined ? null : aliasOf(address),
        thresholds.read(address),
        this.#submitted(address),
      ]);
    // A pending credit is a record too: the PPLNS window can reach past the hashrate statistics.
    const hasBalance =
      balance !== null &&
      (balance.unlockedAtomic !== 0n ||
        balance.inPayoutAtomic !== 0n ||
        balance.paidAtomic !== 0n ||
        (balance.pendingAtomic ?? 0n) !== 0n);
    // A stored threshold is a record too: a miner may set it before their rigs send a share.
    const hasRecord =
      lastShareMs !== null || workers.length > 0 || hasBalance || paid.length > 0 || threshold !== null;
    if (!hasRecord) return null;
    const view: MinerView = {
      address,
      alias,
      hashrate: rated.hashrate,
      hashrateWindowSeconds: window / 1000,
      lastShareMs,
      workers: workers.map((worker) => this.workerView(worker, now)),
      balance:
        balance === null
          ? null
          : {
              pendingAtomic: balance.pendingAtomic === null ? null : balance.pendingAtomic.toString(),
              unlockedAtomic: balance.unlockedAtomic.toString(),
              inPayoutAtomic: balance.inPayoutAtomic.toString(),
              paidAtomic: balance.paidAtomic.toString(),
              networkFeesAtomic: balance.networkFeesAtomic.toString(),
            },
      payoutThreshold: payoutThresholdView(threshold, thresholdLimitsOf(this.#modules.poolInfo)),
      submitted,
      chart: { resolutionSeconds: this.#options.minerChartResolutionMs / 1000, points: rated.chart },
      payments: paid.map(paymentView),
      timestampMs: now,
    };
    return { view, workerCharts: charts };
  }

  /** The miner's submitted difficulty, overall and in the open round, beside the round's total. */
  async #submitted(address: string): Promise<MinerView['submitted']> {
    const { ledger } = this.#modules;
    const [totals, round] = await Promise.all([
      ledger.getMinerShareTotals(address, []),
      ledger.getCurrentRoundSummary(),
    ]);
    return {
      totalDifficulty: totals.difficultyTotal.toString(),
      roundDifficulty: totals.roundDifficulty.toString(),
      roundTotalDifficulty: (round?.totalDifficulty ?? 0n).toString(),
    };
  }
}
