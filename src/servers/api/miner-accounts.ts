import type { RedisBalances } from '../../store/payments/balances-store.js';
import type { PayoutStore } from '../../store/payments/payout-store.js';
import type { PendingCredits } from '../../store/shares/pending-credits.js';

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

export interface PaymentBatchView {
  readonly batchId: string;
  readonly transactionHash: string;
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
  /** Sent payout batches, newest first (prepared, sending and failed ones are not public). */
  listBatches(page: Page): Promise<PaymentBatchView[]>;
}

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

  constructor(modules: {
    readonly balances: RedisBalances;
    readonly payouts: PayoutStore;
    /** Estimated credits of found, unconfirmed blocks; without it `pendingAtomic` is null. */
    readonly pending?: PendingCredits;
  }) {
    this.#balances = modules.balances;
    this.#payouts = modules.payouts;
    this.#pending = modules.pending ?? null;
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

  async listBatches(page: Page): Promise<PaymentBatchView[]> {
    const batches = await this.#payouts.listRecentBatches(rowsNeeded(page));
    return batches
      .filter((batch) => batch.state === 'sent' && batch.txHash !== null)
      .slice(page.offset, page.offset + page.limit)
      .map((batch) => ({
        batchId: batch.id,
        transactionHash: batch.txHash ?? '',
        timestampMs: batch.updatedAtMs,
        recipients: batch.transfers.length,
        amountAtomic: batch.totalAmountAtomic,
        feeAtomic: batch.actualFeeAtomic ?? batch.networkFeeAtomic,
      }));
  }
}
