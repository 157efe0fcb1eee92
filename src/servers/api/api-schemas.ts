import { z } from 'zod';
import { API_ERROR_CODES } from './api-errors.js';

/**
 * Every JSON shape the API sends, written once in zod: fastify gets them as JSON Schema (draft-07)
 * for `schema.response` (serialisation drops anything not declared), and the tests parse replies
 * with the same objects (strict: an undeclared field fails). Conventions (API.md):
 * - amounts are atomic units as decimal strings, field names ending in `Atomic` (1 XFG = 10^7);
 * - values that are bigint in the store (difficulty sums, network difficulty) are decimal strings;
 * - hashrates are numbers in H/s; times are epoch milliseconds, names ending in `Ms`;
 * - absent data is `null`, never a missing field.
 */

const decimal = z.string().regex(/^-?\d+$/);
const count = z.number().int().min(0);
const ms = z.number().int().min(0);
const hash = z.string().regex(/^[0-9a-f]{64}$/);

export const errorReplySchema = z.strictObject({
  error: z.strictObject({ code: z.enum(API_ERROR_CODES), message: z.string() }),
});

export const portSchema = z.strictObject({
  port: z.number().int().min(1).max(65535),
  difficulty: z.number().int().min(1),
  varDiff: z.boolean(),
  tls: z.boolean(),
  solo: z.boolean(),
  description: z.string(),
});

export const paymentSettingsSchema = z.strictObject({
  scheme: z.enum(['pplns', 'prop', 'solo']),
  /** PPLNS window as a multiple of the network difficulty; null for other schemes. */
  pplnsWindowFactor: z.number().positive().nullable(),
  feePercent: z.number().min(0).max(100),
  soloFeePercent: z.number().min(0).max(100),
  minPaymentAtomic: decimal,
  /** The highest payout threshold a miner may set for themselves. */
  maxThresholdAtomic: decimal,
  intervalSeconds: count,
  unlockDepth: count,
  networkFeePaidBy: z.enum(['pool', 'miners']),
});

export const blockSummarySchema = z.strictObject({
  height: count,
  hash,
  status: z.enum(['pending', 'confirmed', 'orphaned', 'rejected']),
  /** Blocks on top of this one (the daemon's `depth`); null while the network height is unknown. */
  confirmations: count.nullable(),
  timestampMs: ms,
  networkDifficulty: decimal,
  /** Round difficulty / network difficulty x 100; null for a solo block (it closed no round). */
  effortPercent: z.number().min(0).nullable(),
  roundTotalDifficulty: decimal.nullable(),
  solo: z.boolean(),
  /** The miner who found it (addresses are public on the pool's pages; IPs never are). */
  finderAddress: z.string(),
  rewardAtomic: decimal.nullable(),
  /**
   * A pending block's unlocker note: its depth, or why it waits (e.g. another block holds its
   * height for now, after a reorg that may still be undone); null otherwise.
   */
  unlockNote: z.string().nullable(),
});

export const feePoolSchema = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('ok'),
    balanceAtomic: decimal,
    currentEpochSwapFeesAtomic: decimal,
    totalCdLockedAtomic: decimal,
    currentEpoch: count,
  }),
  z.strictObject({ status: z.literal('not-available'), message: z.string() }),
  z.strictObject({ status: z.literal('unknown'), message: z.string() }),
]);

export const heatDepositsSchema = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('ok'),
    /** Deposits of every kind. */
    count,
    /**
     * deposit_type -> its deposits' count and summed amount, in the kind's own asset (`asset`,
     * null when the pool does not know it); never added across kinds.
     */
    byType: z.record(
      z.string(),
      z.strictObject({ asset: z.string().nullable(), count, amountAtomic: decimal }),
    ),
  }),
  z.strictObject({ status: z.literal('not-available'), message: z.string() }),
  z.strictObject({ status: z.literal('unknown'), message: z.string() }),
]);

export const networkSchema = z.strictObject({
  /** Blocks in the chain (getinfo `height`): the height of the block being mined. */
  height: count,
  difficulty: decimal,
  lastBlockRewardAtomic: decimal,
  lastBlockTimestampMs: ms,
  topBlockHash: hash,
  majorVersion: count,
  minorVersion: count,
  daemonVersion: z.string(),
  depositsLockedAtomic: decimal,
  txPoolSize: count,
  updatedAtMs: ms,
  feePool: feePoolSchema,
  heatDeposits: heatDepositsSchema,
});

/** Luck over the last N found blocks (pool-luck.ts; API.md "Effort and luck"). */
export const luckSchema = z.strictObject({
  blocks: count,
  counted: count,
  meanEffortPercent: z.number().min(0).nullable(),
});

/** The explorer link templates (`api.explorer`); null: not configured. */
export const explorerLinksSchema = z.strictObject({
  block: z.string().nullable(),
  transaction: z.string().nullable(),
  address: z.string().nullable(),
});

export const poolStatsSchema = z.strictObject({
  pool: z.strictObject({
    name: z.string(),
    hashrate: z.number().min(0),
    hashrateWindowSeconds: count,
    miners: count,
    workers: count,
    activeWindowSeconds: count,
    round: z.strictObject({
      startedAtMs: ms.nullable(),
      totalDifficulty: decimal,
      shareCount: count,
      effortPercent: z.number().min(0).nullable(),
    }),
    /** The open round's difficulty / network difficulty (a ratio, 1 = 100 %); null before the first daemon poll. */
    currentEffort: z.number().min(0).nullable(),
    luck: luckSchema,
    lastBlock: blockSummarySchema.nullable(),
    blocksFound: count,
    ports: z.array(portSchema),
    payments: paymentSettingsSchema,
  }),
  coin: z.strictObject({ symbol: z.string(), decimals: count, blockTargetSeconds: count }),
  explorer: explorerLinksSchema,
  /** null until the first successful poll of the daemon. */
  network: networkSchema.nullable(),
  timestampMs: ms,
});

const chartPointsSchema = z.array(z.strictObject({ startMs: ms, hashrate: z.number().min(0) }));

export const chartSchema = z.strictObject({
  resolutionSeconds: count,
  points: chartPointsSchema,
});

export const blocksPageSchema = z.strictObject({
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  blocks: z.array(blockSummarySchema),
});

export const paymentBatchSchema = z.strictObject({
  batchId: z.string(),
  transactionHash: z.string(),
  timestampMs: ms,
  recipients: count,
  amountAtomic: decimal,
  feeAtomic: decimal,
});

export const paymentsPageSchema = z.strictObject({
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  payments: z.array(paymentBatchSchema),
});

export const minerPaymentSchema = z.strictObject({
  batchId: z.string(),
  transactionHash: z.string(),
  timestampMs: ms,
  amountAtomic: decimal,
  networkFeeAtomic: decimal,
});

export const minerPaymentsPageSchema = z.strictObject({
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  payments: z.array(minerPaymentSchema),
});

export const balanceSchema = z.strictObject({
  /** The miner's estimated credit from found blocks not yet confirmed (same split the unlocker will credit); null without the store. */
  pendingAtomic: decimal.nullable(),
  /** Confirmed and payable. */
  unlockedAtomic: decimal,
  inPayoutAtomic: decimal,
  paidAtomic: decimal,
  networkFeesAtomic: decimal,
});

export const workerSchema = z.strictObject({
  /** The name from the login; "(others)" takes the shares of names beyond `store.maxWorkersPerMiner`. */
  name: z.string(),
  hashrate: z.number().min(0),
  lastShareMs: ms,
  /** No share for `workerOfflineMs` or longer. */
  offline: z.boolean(),
});

/** GET /api/miners/:address/workers: every tracked worker, charts for the first `maxWorkerCharts`. */
export const minerWorkersSchema = z.strictObject({
  address: z.string(),
  hashrateWindowSeconds: count,
  offlineAfterSeconds: count,
  chartResolutionSeconds: count,
  workers: z.array(
    workerSchema.extend({
      /** The miner chart's span and resolution; null beyond the first `maxWorkerCharts` workers. */
      chart: chartPointsSchema.nullable(),
    }),
  ),
  timestampMs: ms,
});

/** The deepest page size of a paged route (`?limit`). */
const MAX_PAGE_LIMIT = 100;

/** `?page&limit` of a paged route. */
export const pageQuerySchema = z.strictObject({
  page: z.number().int().min(1).max(10_000).default(1),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** The longest `:address` a route takes: an integrated address is 186 characters. */
export const MAX_ADDRESS_PARAM_LENGTH = 256;

/** `:address` in a miner route (decoded by parseMinerAddress). */
export const addressParamsSchema = z.strictObject({
  address: z.string().min(1).max(MAX_ADDRESS_PARAM_LENGTH),
});

/** A miner's payout threshold (set with a signed message: POST /api/miners/:address/threshold). */
export const payoutThresholdSchema = z.strictObject({
  /** What the miner's payouts wait for: their own threshold (capped, at least the minimum) or the pool minimum. */
  thresholdAtomic: decimal,
  /** false: the miner has not set one, the pool minimum applies. */
  custom: z.boolean(),
  minimumAtomic: decimal,
  maximumAtomic: decimal,
  /** Timestamp (unix seconds) of the last accepted signed message; a new one must be later. */
  lastTimestampSec: count.nullable(),
});

/** The body of POST /api/miners/:address/threshold. */
export const setThresholdBodySchema = z.strictObject({
  /** Coins, at most 7 decimals ("25", "25.5"); the pool minimum returns to the default. */
  thresholdCoins: z.string().min(1).max(32),
  /** The unix seconds written in the signed message. */
  timestampSec: z
    .number()
    .int()
    .min(0)
    .max(2 ** 40),
  /** What `sign_message` printed, "Sig…": only its first 91 characters. */
  signature: z.string().min(1).max(1_024),
});

export const setThresholdReplySchema = z.strictObject({
  address: z.string(),
  payoutThreshold: payoutThresholdSchema,
});

export const minerSchema = z.strictObject({
  address: z.string(),
  alias: z.string().nullable(),
  hashrate: z.number().min(0),
  hashrateWindowSeconds: count,
  lastShareMs: ms.nullable(),
  workers: z.array(workerSchema),
  /** null when the pool runs without the balances store. */
  balance: balanceSchema.nullable(),
  payoutThreshold: payoutThresholdSchema,
  /** What the miner submitted: every accepted share's difficulty (solo too), and in the open round. */
  submitted: z.strictObject({
    totalDifficulty: decimal,
    /** Its pool shares in the open round; over the round's totalDifficulty: its part of the round. */
    roundDifficulty: decimal,
    roundTotalDifficulty: decimal,
  }),
  chart: chartSchema,
  payments: z.array(minerPaymentSchema),
  timestampMs: ms,
});

export const healthCheckSchema = z.strictObject({
  status: z.enum(['ok', 'failing', 'not-configured']),
  detail: z.string().nullable(),
  /** Age of the data the check is based on (poll result, template). */
  ageMs: ms.nullable(),
});

export const healthSchema = z.strictObject({
  status: z.enum(['ok', 'degraded', 'failing']),
  checks: z.strictObject({
    redis: healthCheckSchema,
    daemon: healthCheckSchema,
    wallet: healthCheckSchema,
    template: healthCheckSchema,
    /** The daemon's chain as the unlocker judges it (payments.unlockNeedsDaemonPeers). */
    daemonChain: healthCheckSchema,
  }),
  timestampMs: ms,
});

export const adminOverviewSchema = z.strictObject({
  counters: z.record(z.string(), z.number()),
  /** Active bans as a count only: IPs are never returned by any route. */
  activeBans: count.nullable(),
  liveFeedClients: count,
  timestampMs: ms,
});

// ---- the classic cryptonote-nodejs-pool read API (numbers as that API sent them) ----------------

const classicZset = z.array(z.union([z.string(), z.number()]));

export const classicStatsSchema = z.strictObject({
  config: z.strictObject({
    ports: z.array(
      z.strictObject({ port: z.number(), difficulty: z.number(), desc: z.string(), ssl: z.boolean() }),
    ),
    hashrateWindow: z.number(),
    fee: z.number(),
    coin: z.string(),
    coinUnits: z.number(),
    coinDecimalPlaces: z.number(),
    coinDifficultyTarget: z.number(),
    symbol: z.string(),
    depth: z.number(),
    version: z.string(),
    paymentsInterval: z.number(),
    minPaymentThreshold: z.number(),
    transferFee: z.number(),
    slushMiningEnabled: z.boolean(),
  }),
  pool: z.strictObject({
    stats: z.strictObject({ lastBlockFound: z.string() }),
    blocks: classicZset,
    totalBlocks: z.number(),
    payments: classicZset,
    totalPayments: z.number(),
    totalMinersPaid: z.number(),
    miners: z.number(),
    workers: z.number(),
    hashrate: z.number(),
    roundHashes: z.number(),
    roundScore: z.number(),
    lastBlockFound: z.string(),
    /** Not in the classic API: the open round's effort (ratio) and the luck of the last blocks (percent). */
    currentEffort: z.number().nullable(),
    luck: z.number().nullable(),
  }),
  network: z.strictObject({ difficulty: z.number(), height: z.number() }),
  lastblock: z.strictObject({
    difficulty: z.number(),
    height: z.number(),
    timestamp: z.number(),
    reward: z.number(),
    hash: z.string(),
  }),
  charts: z.strictObject({ hashrate: z.array(z.array(z.number())) }),
  miner: z.record(z.string(), z.number()),
});

export const classicStatsAddressSchema = z.union([
  z.strictObject({
    stats: z.strictObject({
      hashes: z.string(),
      lastShare: z.string(),
      balance: z.string(),
      paid: z.string(),
      hashrate: z.number(),
      roundHashes: z.number(),
    }),
    payments: classicZset,
    charts: z.strictObject({
      hashrate: z.array(z.array(z.number())),
      /** Not in the classic API: `[timeSec, hashrate, 1]` points per worker name (the first `maxWorkerCharts`). */
      worker_hashrate: z.record(z.string(), z.array(z.array(z.number()))),
    }),
    workers: z.array(
      z.strictObject({
        name: z.string(),
        hashrate: z.number(),
        lastShare: z.number(),
        hashes: z.number(),
        /** Not in the classic API: no share for `workerOfflineMs`. */
        offline: z.boolean(),
      }),
    ),
  }),
  z.strictObject({ error: z.string() }),
]);

export const classicZsetSchema = classicZset;

/** JSON Schema for fastify; `$schema` dropped (fastify's Ajv would try to resolve it). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** A route's `schema.response`: `ok` for 200, the error reply for every 4xx and 5xx. */
export function replySchemas(ok: z.ZodType): Record<string, unknown> {
  const error = jsonSchema(errorReplySchema);
  return { 200: jsonSchema(ok), '4xx': error, '5xx': error };
}
