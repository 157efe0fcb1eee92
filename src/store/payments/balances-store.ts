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

/** Per-miner history entries kept (approximate trim); ~150 B each. */
export const DEFAULT_HISTORY_MAX_LENGTH = 10_000;
/** listPayable / history pages are bounded. */
const MAX_PAGE = 5_000;

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
  readonly #adjust: ScriptRunner;

  constructor(opts: RedisBalancesOptions, modules: RedisBalancesModules) {
    this.keys = createPaymentKeys(opts.keyPrefix);
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
    this.#historyMaxLength = opts.historyMaxLength ?? DEFAULT_HISTORY_MAX_LENGTH;
    this.#adjust = defineScript(modules.redis, 'fuegoPoolAdjustBalance', ADJUST_BALANCE_LUA);
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
   * is no money in the wallet). Read from the payable index, whose scores (doubles) are exact
   * below 2^53 atomic units, far above any coin supply.
   */
  async positiveBalanceTotal(): Promise<bigint> {
    let total = 0n;
    let cursor = '0';
    do {
      const [next, flat] = await runPaymentCommand('positiveBalanceTotal', () =>
        this.#redis.zscan(this.keys.payable, cursor, 'COUNT', 1_000),
      );
      for (let i = 1; i < flat.length; i += 2) total += BigInt(Number(flat[i]));
      cursor = next;
    } while (cursor !== '0');
    return total;
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
