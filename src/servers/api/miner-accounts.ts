import { type PayoutBatch, sentAtMs } from '../../model/payouts/payout-batch.js';
import {
  type BalanceChangeReason,
  DEFAULT_HISTORY_MAX_LENGTH,
  type RedisBalances,
} from '../../store/payments/balances-store.js';
import type { PayoutStore } from '../../store/payments/payout-store.js';
import type { PendingCredits } from '../../store/shares/pending-credits.js';
import { ShortCache } from './short-cache.js';

/** Reads and page sizes are bounded: offset + limit never passes this. */
export const MAX_ACCOUNT_ROWS = 1_000;

export interface MinerBalanceView {
  /** Estimated share of unconfirmed blocks; null while the store does not track it. */
  readonly pendingAtomic: bigint | null;
  readonly unlockedAtomic: bigint;
  readonly inPayoutAtomic: bigint;
  readonly paidAtomic: bigint;
  readonly networkFeesAtomic: bigint;
}

export interface MinerPaymentView {
  readonly batchId: string;
  readonly transactionHash: string;
  readonly timestampMs: number;
  readonly amountAtomic: bigint;
  readonly networkFeeAtomic: bigint;
}

/** The balance changes of a miner other than its payouts: what it was credited, and why else it changed. */
export const REWARD_KINDS = [
  'block-credit',
  'pool-fee',
  'orphan-clawback',
  'orphan-credit-back',
  'adjustment',
] as const satisfies readonly BalanceChangeReason[];

/** One entry of a miner's balance history that is not a payout. */
export interface MinerRewardView {
  readonly timestampMs: number;
  /**
   * `block-credit`: the miner's share of a confirmed block; `pool-fee`: the fee to the pool's fee
   * address; `orphan-clawback` / `orphan-credit-back`: the operator took back (negative) or gave
   * back a block's credit after a deep reorg (`fuego-pool block settle`); `adjustment`: the
   * operator's manual change (`fuego-pool balance adjust`).
   */
  readonly kind: (typeof REWARD_KINDS)[number];
  /** The block, or '' for a manual adjustment (whose note is the operator's, not published). */
  readonly blockHash: string;
  /** Signed. */
  readonly amountAtomic: bigint;
}

export interface PaymentBatchView {
  readonly batchId: string;
  readonly transactionHash: string;
  /** When it was sent (sentAtMs), as the miners' payment rows of it say. */
  readonly timestampMs: number;
  readonly recipients: number;
  readonly amountAtomic: bigint;
  readonly feeAtomic: bigint;
}

export interface Page {
  readonly offset: number;
  readonly limit: number;
}

/** The seam between the API and the money store (balances and payout batches). */
export interface MinerAccountsReader {
  getBalance(address: string): Promise<MinerBalanceView>;
  /** Payments to one miner, newest first. */
  listPayments(address: string, page: Page): Promise<MinerPaymentView[]>;
  /** Block credits to one miner and the operator's changes of its balance, newest first. */
  listRewards(address: string, page: Page): Promise<MinerRewardView[]>;
  /** Sent payout batches, newest first (prepared, sending and failed ones are not public). */
  listBatches(page: Page): Promise<PaymentBatchView[]>;
  /** The newest `limit` sent payout batches sent before `beforeMs`, newest first. */
  listBatchesBefore(beforeMs: number, limit: number): Promise<PaymentBatchView[]>;
  /** How many payout batches were sent (all of them, not a page). */
  countSentBatches(): Promise<number>;
}

/** How long a page of the public payout list is served from memory (a flood of requests reads once). */
export const BATCH_PAGE_CACHE_MS = 3_000;

/** History entries read per round trip while collecting a miner's credits. */
const HISTORY_CHUNK = 500;
const REWARD_REASONS: ReadonlySet<BalanceChangeReason> = new Set(REWARD_KINDS);

function rowsNeeded(page: Page): number {
  return Math.min(page.offset + page.limit, MAX_ACCOUNT_ROWS);
}

/**
 * MinerAccountsReader over the balances and payout stores (src/store/payments/balances-store.ts,
 * payout-store.ts). Those read from the newest entry only, so a page is read as its first
 * offset + limit rows and sliced; MAX_ACCOUNT_ROWS bounds that.
 */
export class RedisMinerAccounts implements MinerAccountsReader {
  readonly #balances: RedisBalances;
  readonly #payouts: PayoutStore;

  readonly #pending: PendingCredits | null;
  readonly #batchPages: ShortCache<PaymentBatchView[]>;

  constructor(modules: {
    readonly balances: RedisBalances;
    readonly payouts: PayoutStore;
    /** Estimated credits of found, unconfirmed blocks; without it `pendingAtomic` is null. */
    readonly pending?: PendingCredits;
    /** For the payout list's short cache; Date.now by default. */
    readonly clock?: () => number;
  }) {
    this.#balances = modules.balances;
    this.#payouts = modules.payouts;
    this.#pending = modules.pending ?? null;
    this.#batchPages = new ShortCache({
      ttlMs: BATCH_PAGE_CACHE_MS,
      clock: modules.clock ?? Date.now,
      maxKeys: 1_000,
    });
  }

  async getBalance(address: string): Promise<MinerBalanceView> {
    const [balance, pending] = await Promise.all([
      this.#balances.getBalance(address),
      this.#pending === null ? null : this.#pending.pendingOf(address),
    ]);
    return {
      pendingAtomic: pending,
      unlockedAtomic: balance.balance,
      inPayoutAtomic: balance.inPayout,
      paidAtomic: balance.paid,
      networkFeesAtomic: balance.networkFees,
    };
  }

  async listPayments(address: string, page: Page): Promise<MinerPaymentView[]> {
    const rows = await this.#balances.getPayments(address, rowsNeeded(page));
    return rows.slice(page.offset, page.offset + page.limit).map((row) => ({
      batchId: row.batchId,
      transactionHash: row.txHash,
      timestampMs: row.timestampMs,
      amountAtomic: row.amountAtomic,
      networkFeeAtomic: row.networkFeeAtomic,
    }));
  }

  /**
   * The history mixes credits with payout entries, so it is read in chunks, newest first, until
   * the page is filled; at most the history's kept length (DEFAULT_HISTORY_MAX_LENGTH) is scanned.
   */
  async listRewards(address: string, page: Page): Promise<MinerRewardView[]> {
    const needed = rowsNeeded(page);
    const credits: MinerRewardView[] = [];
    let beforeId: string | undefined;
    for (let scanned = 0; credits.length < needed && scanned < DEFAULT_HISTORY_MAX_LENGTH; ) {
      const chunk = await this.#balances.getHistory(address, HISTORY_CHUNK, beforeId);
      for (const entry of chunk) {
        if (!REWARD_REASONS.has(entry.reason)) continue;
        credits.push({
          timestampMs: entry.timestampMs,
          kind: entry.reason as MinerRewardView['kind'],
          blockHash: entry.reason === 'adjustment' ? '' : entry.ref,
          amountAtomic: entry.amountAtomic,
        });
      }
      if (chunk.length < HISTORY_CHUNK) break;
      scanned += chunk.length;
      beforeId = chunk[chunk.length - 1]!.id;
    }
    return credits.slice(page.offset, Math.min(page.offset + page.limit, needed));
  }

  listBatches(page: Page): Promise<PaymentBatchView[]> {
    return this.#batchPages.get(`${page.offset}:${page.limit}`, () => this.#readBatches(page));
  }

  /** Kept like a page: a flood of requests for one time reads once. */
  listBatchesBefore(beforeMs: number, limit: number): Promise<PaymentBatchView[]> {
    return this.#batchPages.get(`before:${beforeMs}:${limit}`, async () =>
      batchViews(await this.#payouts.listSentBatchesBefore(beforeMs, Math.min(limit, MAX_ACCOUNT_ROWS))),
    );
  }

  countSentBatches(): Promise<number> {
    return this.#payouts.countSentBatches();
  }

  async #readBatches(page: Page): Promise<PaymentBatchView[]> {
    const limit = Math.max(0, rowsNeeded(page) - page.offset);
    const batches = limit === 0 ? [] : await this.#payouts.listSentBatches({ offset: page.offset, limit });
    return batchViews(batches);
  }
}

function batchViews(batches: readonly PayoutBatch[]): PaymentBatchView[] {
  return batches.map((batch) => ({
    batchId: batch.id,
    transactionHash: batch.txHash ?? '',
    timestampMs: sentAtMs(batch),
    recipients: batch.transfers.length,
    amountAtomic: batch.totalAmountAtomic,
    feeAtomic: batch.actualFeeAtomic ?? batch.networkFeeAtomic,
  }));
}
