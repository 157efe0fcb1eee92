import { z } from 'zod';
import { coinAmountAtomic } from './coin-amount.js';
import { daemonTimeoutMs, host, port, rpcTls } from './schema-parts.js';

/** The payment schemes the pool knows, as they are spelled in config and in the ledger. */
/** `payments.emptyRound` when not set; the split functions fall back to it too (pool/schemes). */
export const DEFAULT_EMPTY_ROUND_POLICY = 'credit-finder';

/**
 * `payments.reorgWatchBlocks` when not set: Fuego's 60-block coinbase unlock window
 * (src/fuego/coinbase-maturity.ts) past crediting, when payouts of the reward begin, and as much
 * again as margin.
 */
export const DEFAULT_REORG_WATCH_BLOCKS = 120;

/**
 * `payments.reorgAuditBlocks` when not set: about a month of Fuego blocks (480 s each: 180 a day,
 * 30 days).
 */
export const DEFAULT_REORG_AUDIT_BLOCKS = 5_400;

export const PAYMENT_SCHEME_NAMES = ['pplns', 'prop', 'solo'] as const;
/** The network's minimum transaction fee (0.008 XFG), what walletd 1.9.3 always pays. */
const MINIMUM_FEE_ATOMIC = 80_000;

/**
 * The `payments` section: how confirmed blocks are shared (scheme, fees, unlock depth) and how
 * balances are paid out. Money amounts are written as coin strings and percentages as decimal
 * text or numbers, converted exactly (never through float arithmetic) where they are used.
 */

const PERCENT_PATTERN = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

/**
 * "1.25" or 1.25 -> 125 basis points, exactly (from the decimal text, never by float multiply);
 * null for anything that is not 0..100 with at most 2 decimals (negative, 1e-3, 0.125, 101).
 */
export function percentToBasisPoints(value: number | string): number | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = PERCENT_PATTERN.exec(text);
  if (match === null) return null;
  const basisPoints = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return basisPoints <= 10_000 ? basisPoints : null;
}

/** The daemon keeps a transaction in its mempool this long; an unresolved send can be mined until then. */
export const MEMPOOL_LIFETIME_SEC = 24 * 3_600;

const percent = z.union([z.number(), z.string()]).refine((value) => percentToBasisPoints(value) !== null, {
  message: 'must be a percentage from 0 to 100 with at most 2 decimals',
});

const witnessTls = rpcTls.describe(
  'Ask the witness over HTTPS: fuegod speaks plain HTTP, so a TLS proxy in front of it, on its host. Without fingerprint or caFile its certificate must be signed by one of the system CAs and name `host`. Absent: plain HTTP, only for a witness reached over a network the operator trusts (a VPN, an SSH tunnel): on the open internet anyone on the path could answer for it.',
);

/**
 * The unlocker's keys of the `payments` config section (merged into one strict object with the
 * payout keys below).
 */
export const unlockerConfigFields = {
  scheme: z
    .enum(PAYMENT_SCHEME_NAMES)
    .default('pplns')
    .describe('How pool (non-solo) blocks are shared; solo blocks are always paid by SOLO.'),
  poolFeePercent: percent
    .default(1)
    .describe('Pool fee taken from the reward of each pool block, in percent ("1.25" or 1.25).'),
  soloFeePercent: percent.optional().describe('Fee of solo blocks; defaults to poolFeePercent.'),
  finderBonusPercent: percent
    .default(0)
    .describe(
      'Extra share for the miner who found a pool block, in percent of the reward after the pool fee (not for solo blocks).',
    ),
  feeAddress: z
    .string()
    .min(1)
    .optional()
    .describe('Where the pool fee is credited (and later paid); without one it stays in the pool wallet.'),
  pplnsWindowFactor: z
    .number()
    .min(0.001)
    .max(100)
    .default(2)
    .describe(
      "PPLNS only: a block pays the last shares worth this many times the block's network difficulty.",
    ),
  emptyRound: z
    .enum(['credit-finder', 'reject'])
    .default(DEFAULT_EMPTY_ROUND_POLICY)
    .describe(
      'A block no share counts towards (its round\'s records lost): "credit-finder" gives the miners\' part to the finder, whose share is the one known to exist; "reject" holds the block pending for the operator (logged as an unlock error).',
    ),
  confirmDepth: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(60)
    .describe(
      "Depth (blocks on top of its height) at which a block is decided: credited if it is the main chain's block there, orphaned if another is (shallower, it waits: a reorg may still be undone). Coinbase unlocks at 60.",
    ),
  reorgWatchBlocks: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(DEFAULT_REORG_WATCH_BLOCKS)
    .describe(
      'After crediting, a block is checked for this many more blocks (until confirmDepth + this deep): a reorg deeper than confirmDepth that replaces it is logged, notified (block-orphaned-after-credit) and listed by `fuego-pool report`; nothing is debited. Default 120: the 60-block coinbase unlock window after crediting (when payouts of the reward begin) and as much again; with confirmDepth 60, 180 blocks, about a day.',
    ),
  reorgAuditBlocks: z
    .number()
    .int()
    .min(0)
    .max(50_000)
    .default(DEFAULT_REORG_AUDIT_BLOCKS)
    .describe(
      'Below the reorg watch (deeper than confirmDepth + reorgWatchBlocks), the credited blocks of this many more heights are checked again every reorgAuditIntervalSec, on a trusted chain as the watch is, one block-list call per ~30 heights that hold such blocks; one a reorg replaced is flagged, notified (block-orphaned-after-credit) and reported like one the watch finds, once; nothing is debited. Blocks flagged or settled already are checked too, as the watch checks them: one a later reorg put back is unflagged, or noted restored when settled (block-orphan-restored; a clawed-back one is then owed its credit back). Default 5400: about a month of blocks. 0: no audit (a reorg deeper than the watch then goes unnoticed).',
    ),
  reorgAuditIntervalSec: z
    .number()
    .int()
    .min(60)
    .max(604_800)
    .default(3_600)
    .describe(
      "How often, at least, the leader's unlock run does the reorg audit (reorgAuditBlocks). When the last one began is kept in Redis (<prefix>:unlocker:reorg-audit:last-run), so the interval holds across restarts and a failover to another leader; the first ever in the leader's first run.",
    ),
  unlockNeedsDaemonPeers: z
    .boolean()
    .optional()
    .describe(
      "Decide pending blocks only while fuegod's chain can be trusted: it has peer connections (getinfo's outgoing + incoming) and is not syncing (the height its peers know is at most 2 above its own). An isolated or syncing daemon may report a private fork only the pool extends, whose blocks would be credited, paid, then lost when it rejoins the network; such runs decide nothing (nor does the reorg watch flag credited blocks) and log why. Defaults per `network`: true on mainnet and testnet, false on the devnet (its daemon has no peers).",
    ),
  witnessDaemons: z
    .array(
      z.strictObject({
        host: host.describe("The witness fuegod's RPC address."),
        port: port.describe("The witness fuegod's RPC port."),
        timeoutMs: daemonTimeoutMs.describe('Timeout of one RPC call to the witness.'),
        tls: witnessTls.optional(),
      }),
    )
    .max(8)
    .default([])
    .describe(
      "Other fuegod nodes, each with its own peers (on another host, ideally another network), that must hold the same block as the pool's daemon 2 blocks below its newest (the newest 2 are not compared: a race for them is not a fork; with confirmDepth 1 or 2, 0 or 1 blocks below) before a run credits or orphans anything. Catches what the peer check cannot: a fuegod whose peers are all on one fork (an eclipse or a network split) looks synced and healthy. While any witness holds another block there (logged as an error), does not answer, or is not that high, runs decide nothing and say why. Empty (the default): no witness is asked.",
    ),
  unlockIntervalSec: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(60)
    .describe(
      "How often the leader checks pending blocks' depth (confirmDepth) and credits or orphans them.",
    ),
};

export const unlockerConfigSchema = z.strictObject(unlockerConfigFields);

const coins = z.string().refine((text) => coinAmountAtomic(text) !== null, {
  message: 'must be a non-negative coin amount such as "0.5" (at most 7 decimals)',
});

/** walletd refuses a fusion threshold at or below its dust threshold (application code 10). */
const FUSION_MIN_THRESHOLD_ATOMIC = 20_000n;

/**
 * `payments.payouts.walletUpkeep`: when the leader joins the pool wallet's small outputs (a
 * wallet of coinbase outputs makes large payouts too big, or short of decoys) with walletd's
 * zero-fee fusion transactions. `fuego-pool wallet optimize` does it on demand either way.
 */
export const walletUpkeepConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Consolidate by itself: after the wallet refused a payout for a reason that repeats ("MixIn count is too big", "transaction too big"), or when readyShare of its outputs could be fused.',
    ),
  thresholdCoins: coins
    .refine(
      // An amount that does not parse is already reported by `coins`.
      (text) => (safeCoins(text) ?? Number.POSITIVE_INFINITY) > FUSION_MIN_THRESHOLD_ATOMIC,
      { message: 'must be above 0.002 (walletd refuses a fusion threshold at or below its dust threshold)' },
    )
    .default('100')
    .describe("Only outputs below this many coins are joined (walletd's fusion `threshold`)."),
  readyShare: z
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe("Consolidate when estimateFusion's fusionReadyCount / totalOutputCount reaches this."),
  maxFusionsPerRun: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe('Fusion transactions sent per run at most (each joins one power of ten, up to ~2000 outputs).'),
});

/** `payments.payouts`: how and when balances are paid. */
export const payoutConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("The leader's payout interval; false leaves payouts to `fuego-pool payout` (cron)."),
  intervalSec: z
    .number()
    .int()
    .min(10)
    .max(7 * 86_400)
    .default(3_600)
    .describe(
      'Seconds between payout runs (by the leader, or the least time between `fuego-pool payout` runs without --now).',
    ),
  minPayoutCoins: coins.default('1').describe('Pool-wide minimum balance that is paid, in coins ("0.5").'),
  maxThresholdCoins: coins
    .default('1000')
    .describe(
      "The highest payout threshold a miner may set for themselves (with a message signed by their wallet, see src/pool/payouts/miner-threshold.ts), in coins: it bounds how long anyone's threshold holds their balance. Equal to minPayoutCoins: miners cannot raise theirs.",
    ),
  maxTransfersPerTransaction: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(15)
    .describe("Transfers per sendTransaction; a transaction must stay under the network's size limit."),
  networkFeeAtomic: z
    .number()
    .int()
    .min(MINIMUM_FEE_ATOMIC)
    .max(1e12)
    .default(80_000)
    .describe("walletd 1.9.3 always pays 80000 whatever it is asked; the record's fee is what counts."),
  feePaidBy: z
    .enum(['pool', 'miners'])
    .default('pool')
    .describe(
      "Who pays each transaction's network fee: the pool wallet, or its recipients in equal parts of networkFeeAtomic (taken from their payouts; what the wallet paid less comes back to their balances once sent).",
    ),
  changeAddress: z
    .string()
    .min(1)
    .optional()
    .describe("A wallet address for the change; default: the wallet's first address."),
  anonymity: z
    .number()
    .int()
    .min(2)
    .max(20)
    .default(2)
    .describe('Ring size sent to walletd (1.9.3 ignores it and uses 2, but requires it).'),
  maxWalletLagBlocks: z
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(2)
    .describe(
      "The wallet's scan must be within this many blocks of the chain its daemon knows (getStatus knownBlockCount − blockCount), or no batch is sent. walletd's own refusal (41) is about its daemon: 2 or more blocks behind its peers.",
    ),
  maxBatchesPerRun: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(20)
    .describe('Transactions (batches) one payout run sends at most; miners left over wait for the next run.'),
  unresolvedRollbackAfterSec: z
    .number()
    .int()
    .min(0)
    .default(26 * 3_600)
    .describe(
      "A batch whose send had an ambiguous outcome and that the wallet does not know is rolled back only after this long: past the daemon mempool's 24 h lifetime, so it can no longer be mined. Also how long after its send `payout resolve --refund` may refund a sent batch the wallet has no record of.",
    ),
  recoveryScanBlocks: z
    .number()
    .int()
    .min(10)
    .max(1_000_000)
    .default(20_000)
    .describe("How far back (blocks) a recovery scan reads the wallet's transactions."),
  requireDurableRedis: z
    .boolean()
    .default(true)
    .describe(
      'Pays only when Redis can make each batch durable before the wallet is called: WAIT for the replicas (redis.replicaAcks; 1 by default with Sentinel), WAITAOF (Redis 7.2+) or an AOF with appendfsync always. false pays on a Redis that may lose the last writes (RDB snapshots, AOF every second): the wallet scan still stops a second payment, but the operator must then resolve the unknown transactions by hand (README, "Money").',
    ),
  refusalBackoffSec: z
    .number()
    .int()
    .min(10)
    .max(86_400)
    .default(600)
    .describe(
      'After the wallet refused to build a transaction for a reason that repeats ("MixIn count is too big" on a young chain, too many inputs), no new batch for this long, doubled after each refusal that follows, up to refusalBackoffMaxSec.',
    ),
  refusalBackoffMaxSec: z
    .number()
    .int()
    .min(10)
    .max(7 * 86_400)
    .default(6 * 3_600)
    .describe('The longest pause after repeated refusals (see refusalBackoffSec).'),
  allowEarlyUnresolvedRollback: z
    .boolean()
    .default(false)
    .describe(
      "Lets unresolvedRollbackAfterSec be shorter than the daemon's mempool lifetime (24 h), where a rolled-back batch may still be mined and paid twice. For test networks only.",
    ),
  lockTtlSec: z
    .number()
    .int()
    .min(1)
    .max(3_600)
    .default(300)
    .describe("The payout lock's expiry; renewed before every wallet call."),
  walletUpkeep: walletUpkeepConfigSchema
    .prefault({})
    .describe(
      "Fusion transactions that join the wallet's small outputs (src/leader/payouts/wallet-upkeep.ts).",
    ),
});

export const paymentsConfigSchema = z
  .strictObject({
    ...unlockerConfigFields,
    payouts: payoutConfigSchema
      .prefault({})
      .describe('How and when balances are paid from the pool wallet (walletd).'),
  })
  .superRefine((config, ctx) => {
    const payouts = config.payouts;
    if (payouts.unresolvedRollbackAfterSec < MEMPOOL_LIFETIME_SEC && !payouts.allowEarlyUnresolvedRollback) {
      ctx.addIssue({
        code: 'custom',
        path: ['payouts', 'unresolvedRollbackAfterSec'],
        message: `must be at least ${MEMPOOL_LIFETIME_SEC} (the daemon's mempool lifetime: a batch rolled back earlier may still be mined and paid twice); payments.payouts.allowEarlyUnresolvedRollback allows it on a test network`,
      });
    }
    if (payouts.refusalBackoffMaxSec < payouts.refusalBackoffSec) {
      ctx.addIssue({
        code: 'custom',
        path: ['payouts', 'refusalBackoffMaxSec'],
        message: 'must be at least refusalBackoffSec',
      });
    }
    const min = safeCoins(config.payouts.minPayoutCoins);
    const max = safeCoins(config.payouts.maxThresholdCoins);
    if (min !== null && max !== null && max < min) {
      ctx.addIssue({
        code: 'custom',
        path: ['payouts', 'maxThresholdCoins'],
        message: 'must be at least minPayoutCoins',
      });
    }
    if (config.payouts.feePaidBy !== 'miners') return;
    if (min !== null && min <= BigInt(config.payouts.networkFeeAtomic)) {
      ctx.addIssue({
        code: 'custom',
        path: ['payouts', 'minPayoutCoins'],
        message: 'must be above the network fee when miners pay it (feePaidBy "miners")',
      });
    }
  });

export type PaymentsConfig = z.infer<typeof paymentsConfigSchema>;
export type PayoutConfig = PaymentsConfig['payouts'];
export type UnlockerConfig = z.infer<typeof unlockerConfigSchema>;

function safeCoins(text: string): bigint | null {
  return coinAmountAtomic(text);
}

/** Validates the `payments` section; the error names the key (`payments.poolFeePercent: ...`). */
