import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { PayableBalances } from '../../model/payouts/payable-balances.js';
import { defineScript, type ScriptRunner } from '../scripts/define-script.js';
import { execStorePipeline } from '../store-error.js';
import { createPaymentKeys, type PaymentKeys } from './payment-keys.js';
import { PaymentStoreError, parseStoredAmount, refusalOf, runPaymentCommand } from './payment-store-error.js';
import {
  ADJUST_BALANCE_LUA,
  type AdjustBalanceRequest,
  buildAdjustBalanceCall,
} from './scripts/adjust-balance.js';
import {
  buildStorePositiveBalanceCall,
  STORE_POSITIVE_BALANCE_LUA,
} from './scripts/store-positive-balance.js';

/** Per-miner history entries kept (approximate trim); ~150 B each. */
export const DEFAULT_HISTORY_MAX_LENGTH = 10_000;
/** listPayable / history pages are bounded. */
const MAX_PAGE = 5_000;
/**
 * Members of the payable index a full sum reads per round trip (ZRANGE by rank): 100,000 miners in
 * 10 round trips, each page about 1 MB of reply and a few ms of Redis.
 */
const SUM_PAGE = 10_000;
/** Waits before summing the index again when it changed while it was summed; then INDEX_CHANGING. */
const SUM_RETRY_WAITS_MS = [100, 300, 1_000, 3_000] as const;
/** 2^53: below it a double holds every integer, so the scripts keep the sum only below it. */
const EXACT_BELOW = 2n ** 53n;

/** One miner's money, atomic units. credited = balance + inPayout + paid + networkFees. */
export interface MinerBalance {
  readonly credited: bigint;
  /** Payable now (confirmed credits not yet in a batch). */
  readonly balance: bigint;
  /** Debited into batches whose outcome is not recorded yet. */
  readonly inPayout: bigint;
  /** Sent to the miner (net of network fee shares). */
  readonly paid: bigint;
  /** Network fee shares charged to the miner (feePaidBy 'miners'). */
  readonly networkFees: bigint;
}

export interface PoolTotals extends MinerBalance {
  /** Sum of confirmed block rewards credited by the unlocker. */
  readonly rewards: bigint;
  /** Pool fees that stayed in the pool wallet (no fee address configured). */
  readonly poolFees: bigint;
  /** Signed sum of manual adjustments. */
  readonly adjustments: bigint;
  /**
   * Network fees paid by the pool: all of them with feePaidBy 'pool'; otherwise what the wallet
   * paid above the miners' charge (miners get back what it paid below it, at mark_sent, or at
   * settle_fee when the wallet could tell the fee only later).
   */
  readonly poolNetworkFees: bigint;
  readonly blocksConfirmed: bigint;
  readonly blocksOrphaned: bigint;
}

export type BalanceChangeReason =
  | 'block-credit'
  | 'pool-fee'
  | 'payout-debit'
  | 'payout-sent'
  | 'payout-rollback'
  | 'payout-late-found'
  | 'payout-adopted'
  | 'payout-reverted'
  | 'payout-fee-refund'
  | 'adjustment'
  | 'orphan-clawback'
  | 'orphan-credit-back';

/** The payable index summed in full, and the sum the money scripts kept at that same instant. */
export interface PositiveBalanceAudit {
  readonly summedAtomic: bigint;
  /** null when none was kept (first read on this Redis, or a sum past 2^53, which is not kept). */
  readonly keptAtomic: bigint | null;
}

export interface BalanceHistoryEntry {
  readonly id: string;
  readonly reason: BalanceChangeReason;
  /** Signed change of `balance` (payout-sent moves in-payout to paid: its amount is what was paid). */
  readonly amountAtomic: bigint;
  /** Block hash, batch id or operator note. */
  readonly ref: string;
  readonly balanceAfterAtomic: bigint;
  readonly timestampMs: number;
}

export interface PaymentRecord {
  readonly batchId: string;
  readonly txHash: string;
  /** Negative in the record that reverts a payment the wallet dropped unmined. */
  readonly amountAtomic: bigint;
  /** The miner's part of the fee the wallet paid: its fee share less any refund. */
  readonly networkFeeAtomic: bigint;
  readonly timestampMs: number;
  /** This record takes back an earlier one of the same transaction (it never reached the miner). */
  readonly reverted: boolean;
}

export interface RedisBalancesOptions {
  readonly keyPrefix: string;
  readonly historyMaxLength?: number;
  /**
   * How a full sum of the payable index pages and waits (tests make pages small to interleave
   * writes with them): members per round trip, and the waits before each new try.
   */
  readonly indexSum?: { readonly pageSize: number; readonly retryWaitsMs: readonly number[] };
}

export interface RedisBalancesModules {
  readonly redis: Redis;
  readonly clock?: () => number;
}

const BALANCE_FIELDS = ['credited', 'balance', 'inPayout', 'paid', 'networkFees'] as const;
const TOTAL_FIELDS = [
  ...BALANCE_FIELDS,
  'rewards',
  'poolFees',
  'adjustments',
  'poolNetworkFees',
  'blocksConfirmed',
  'blocksOrphaned',
] as const;

/** Reads of balances, totals and histories, and manual adjustments. */
export class RedisBalances implements PayableBalances {
  readonly keys: PaymentKeys;
  readonly #redis: Redis;
  readonly #clock: () => number;
  readonly #historyMaxLength: number;
  readonly #indexSum: NonNullable<RedisBalancesOptions['indexSum']>;
  readonly #adjust: ScriptRunner;
  readonly #storePositiveBalance: ScriptRunner;

  constructor(opts: RedisBalancesOptions, modules: RedisBalancesModules) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#indexSum = opts.indexSum ?? { pageSize: SUM_PAGE, retryWaitsMs: SUM_RETRY_WAITS_MS };
    this.#adjust = defineScript(modules.redis, 'fuegoPoolAdjustBalance', ADJUST_BALANCE_LUA);
    this.#storePositiveBalance = defineScript(
      modules.redis,
      'fuegoPoolStorePositiveBalance',
      STORE_POSITIVE_BALANCE_LUA,
    );
  }

  async getBalance(address: string): Promise<MinerBalance> {
    const values = await runPaymentCommand('getBalance', () =>
      this.#redis.hmget(this.keys.balance(address), ...BALANCE_FIELDS),
    );
    return parseFields(BALANCE_FIELDS, values, `balance of ${address}`) as unknown as MinerBalance;
  }

  async getTotals(): Promise<PoolTotals> {
    const values = await runPaymentCommand('getTotals', () =>
      this.#redis.hmget(this.keys.totals, ...TOTAL_FIELDS),
    );
    return parseFields(TOTAL_FIELDS, values, 'pool totals') as unknown as PoolTotals;
  }

  /**
   * Miners whose balance is at least `minAtomic`, largest first, at most `limit`. The ZSET score
   * (a double) only selects; the exact amount is read back from the balance hash.
   */
  async listPayable(
    minAtomic: bigint,
    limit: number,
  ): Promise<Array<{ address: string; balance: MinerBalance }>> {
    const bounded = boundedLimit(limit);
    const addresses = await runPaymentCommand('listPayable', () =>
      this.#redis.zrevrangebyscore(this.keys.payable, '+inf', minAtomic.toString(), 'LIMIT', 0, bounded),
    );
    if (addresses.length === 0) return [];
    // One pipelined round trip for the page's balances, not one per miner.
    const reads = this.#redis.pipeline();
    for (const address of addresses) reads.hmget(this.keys.balance(address), ...BALANCE_FIELDS);
    const replies = (await execStorePipeline('listPayable', reads)) as (string | null)[][];
    const result: Array<{ address: string; balance: MinerBalance }> = [];
    addresses.forEach((address, index) => {
      const values = replies[index]!;
      const balance = parseFields(BALANCE_FIELDS, values, `balance of ${address}`) as unknown as MinerBalance;
      if (balance.balance >= minAtomic) result.push({ address, balance });
    });
    return result;
  }

  /**
   * The sum of the balances above zero: what the pool owes miners before their payouts. Unlike the
   * totals' balance it does not net a balance below zero (a miner paid twice owes the pool; that
   * is no money in the wallet). It is the sum of the payable index's scores (doubles, exact below
   * 2^53 atomic units, far above any coin supply), which the money scripts keep in the totals'
   * positiveBalance as they change balances: one read. Where none is kept yet (a Redis written by
   * a version before it, or a sum past 2^53 the scripts dropped) the index is summed once and
   * stored (see #sumPayable).
   */
  async positiveBalanceTotal(): Promise<bigint> {
    const [kept, version] = await runPaymentCommand('positiveBalanceTotal', () =>
      this.#redis.hmget(this.keys.totals, 'positiveBalance', 'payableVersion'),
    );
    const keptAtomic = keptSum(kept);
    if (keptAtomic !== null) return keptAtomic;
    return (await this.#sumPayable('positiveBalanceTotal', version)).summedAtomic;
  }

  /**
   * The audit of positiveBalanceTotal (`fuego-pool report`): the payable index summed in full, and
   * the sum the scripts kept at that same instant (null when none was kept). Where they differ
   * (a process of an older version changed balances without keeping it) the kept sum is replaced
   * by the full one.
   */
  async auditPositiveBalance(): Promise<PositiveBalanceAudit> {
    return this.#sumPayable('auditPositiveBalance', undefined);
  }

  /**
   * Sums the payable index in pages (ZRANGE by rank), then stores the sum unless the index changed
   * meanwhile: the money scripts move the totals' payableVersion at every change of a score, and
   * store_positive_balance writes only if it is still the version read before the first page (so
   * the pages saw one state of the index, and nothing was missed or counted twice). Otherwise it
   * tries again after a wait; INDEX_CHANGING when the index never stood still that long. Never
   * blocks Redis for more than one page. `version`: as read with the kept sum, undefined to read it.
   */
  async #sumPayable(operation: string, version: string | null | undefined): Promise<PositiveBalanceAudit> {
    for (let attempt = 0; ; attempt++) {
      const before =
        version !== undefined
          ? version
          : await runPaymentCommand(operation, () => this.#redis.hget(this.keys.totals, 'payableVersion'));
      version = undefined;
      const summedAtomic = await this.#sumIndex(operation);
      // The scripts keep no sum past 2^53 (it would not be exact): nothing to compare or store.
      if (summedAtomic >= EXACT_BELOW) return { summedAtomic, keptAtomic: null };
      const reply = (await runPaymentCommand(operation, () =>
        this.#storePositiveBalance(buildStorePositiveBalanceCall(this.keys, before, summedAtomic)),
      )) as [number, string?];
      if (reply[0] === 1) return { summedAtomic, keptAtomic: keptSum(reply[1] ?? null) };
      const waitMs = this.#indexSum.retryWaitsMs[attempt];
      if (waitMs === undefined) {
        throw new PaymentStoreError('INDEX_CHANGING', 'the payable index kept changing while it was summed', {
          operation,
          attempts: attempt + 1,
        });
      }
      await sleep(waitMs);
    }
  }

  /** The payable index's scores added up, a page (SUM_PAGE members) a round trip. */
  async #sumIndex(operation: string): Promise<bigint> {
    const { pageSize } = this.#indexSum;
    let total = 0n;
    for (let start = 0; ; start += pageSize) {
      const flat = await runPaymentCommand(operation, () =>
        this.#redis.zrange(this.keys.payable, start, start + pageSize - 1, 'WITHSCORES'),
      );
      for (let i = 1; i < flat.length; i += 2) {
        const score = Number(flat[i]);
        if (!Number.isInteger(score) || score <= 0) {
          throw new PaymentStoreError(
            'CORRUPT_BALANCE',
            'a payable index score is not an amount above zero',
            {
              address: flat[i - 1],
              score: flat[i],
            },
          );
        }
        total += BigInt(score);
      }
      if (flat.length < 2 * pageSize) return total;
    }
  }

  /** Newest first; `beforeId` (exclusive) pages on from the last entry of the previous page. */
  async getHistory(address: string, limit = 100, beforeId?: string): Promise<BalanceHistoryEntry[]> {
    const end = beforeId === undefined ? '+' : `(${beforeId}`;
    const entries = await runPaymentCommand('getHistory', () =>
      this.#redis.xrevrange(this.keys.history(address), end, '-', 'COUNT', boundedLimit(limit)),
    );
    return entries.map(([id, flat]) => {
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
      return {
        id,
        reason: (fields.get('r') ?? '') as BalanceChangeReason,
        amountAtomic: parseStoredAmount(fields.get('a'), 'history amount'),
        ref: fields.get('ref') ?? '',
        balanceAfterAtomic: parseStoredAmount(fields.get('b'), 'history balance'),
        timestampMs: Number(fields.get('t') ?? '0'),
      };
    });
  }

  /** Payments sent to `address`, newest first. */
  async getPayments(address: string, limit = 100): Promise<PaymentRecord[]> {
    const raw = await runPaymentCommand('getPayments', () =>
      this.#redis.lrange(this.keys.payments(address), 0, boundedLimit(limit) - 1),
    );
    return raw.map((text) => {
      const parsed = JSON.parse(text) as Record<string, string | number | boolean>;
      return {
        batchId: String(parsed['batchId']),
        txHash: String(parsed['txHash']),
        amountAtomic: parseStoredAmount(String(parsed['amountAtomic']), 'payment amount'),
        networkFeeAtomic: parseStoredAmount(String(parsed['networkFeeAtomic']), 'payment fee'),
        timestampMs: Number(parsed['timestampMs']),
        reverted: parsed['reverted'] === true,
      };
    });
  }

  /**
   * A manual adjustment (signed), recorded in the miner's history with `note`. A debit larger than
   * the payable balance throws INSUFFICIENT_BALANCE and changes nothing.
   */
  async adjust(request: AdjustBalanceRequest): Promise<bigint> {
    if (request.deltaAtomic === 0n)
      throw new PaymentStoreError('INVALID_AMOUNT', 'an adjustment of 0 changes nothing');
    const reply = await runPaymentCommand('adjust', () =>
      this.#adjust(
        buildAdjustBalanceCall(this.keys, request, {
          nowMs: this.#clock,
          historyMaxLength: this.#historyMaxLength,
        }),
      ),
    );
    const refusal = refusalOf(reply, 'adjust_balance');
    if (refusal) throw refusal;
    return parseStoredAmount(String((reply as unknown[])[1]), 'balance');
  }
}

/** A kept sum as stored: a decimal integer below 2^53, else null (none, or not one to trust). */
function keptSum(value: string | null | undefined): bigint | null {
  if (value === null || value === undefined || !/^\d{1,16}$/.test(value)) return null;
  const sum = BigInt(value);
  return sum < EXACT_BELOW ? sum : null;
}

function boundedLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) return 1;
  return Math.min(limit, MAX_PAGE);
}

function parseFields(
  names: readonly string[],
  values: readonly (string | null)[],
  what: string,
): Record<string, bigint> {
  const result: Record<string, bigint> = {};
  names.forEach((name, index) => {
    result[name] = parseStoredAmount(values[index], `${what}: ${name}`);
  });
  return result;
}
