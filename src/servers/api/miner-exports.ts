import { z } from 'zod';
import { atomicToDecimal, toCsv } from './csv.js';
import {
  type MinerAccountsReader,
  type MinerPaymentView,
  type MinerRewardView,
  REWARD_KINDS,
} from './miner-accounts.js';

/**
 * A miner's payment history and block rewards as downloads (API.md "Exports"): one page of rows,
 * newest first, as JSON or CSV. Money is in atomic units (exact integers) with a decimal column in
 * coins formatted from the integer, never through a float; the JSON adds the page's totals.
 */

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/);
const ms = z.number().int().min(0);

const paymentRowSchema = z.strictObject({
  timestampMs: ms,
  timeUtc: z.string(),
  batchId: z.string(),
  transactionHash: z.string(),
  amountAtomic: decimal,
  amountCoins: decimal,
  networkFeeAtomic: decimal,
  networkFeeCoins: decimal,
});

const rewardRowSchema = z.strictObject({
  timestampMs: ms,
  timeUtc: z.string(),
  kind: z.enum(REWARD_KINDS),
  blockHash: z.string(),
  amountAtomic: decimal,
  amountCoins: decimal,
});

const exportHead = {
  address: z.string(),
  symbol: z.string(),
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
};

export const paymentsExportSchema = z.strictObject({
  ...exportHead,
  rows: z.array(paymentRowSchema),
  totals: z.strictObject({
    amountAtomic: decimal,
    amountCoins: decimal,
    networkFeeAtomic: decimal,
    networkFeeCoins: decimal,
  }),
});

export const rewardsExportSchema = z.strictObject({
  ...exportHead,
  rows: z.array(rewardRowSchema),
  totals: z.strictObject({ amountAtomic: decimal, amountCoins: decimal }),
});

export type PaymentsExport = z.infer<typeof paymentsExportSchema>;
export type RewardsExport = z.infer<typeof rewardsExportSchema>;
export type ExportKind = 'payments' | 'rewards';

export interface ExportRequest {
  readonly address: string;
  readonly page: number;
  readonly limit: number;
}

export interface CoinUnits {
  readonly symbol: string;
  readonly decimals: number;
}

function sum(values: readonly bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}

function head(request: ExportRequest, coin: CoinUnits) {
  return { address: request.address, symbol: coin.symbol, page: request.page, limit: request.limit };
}

export async function paymentsExport(
  accounts: MinerAccountsReader | null,
  request: ExportRequest,
  coin: CoinUnits,
): Promise<PaymentsExport> {
  const offset = (request.page - 1) * request.limit;
  const rows: MinerPaymentView[] =
    accounts === null ? [] : await accounts.listPayments(request.address, { offset, limit: request.limit });
  const coins = (atomic: bigint) => atomicToDecimal(atomic, coin.decimals);
  const amount = sum(rows.map((row) => row.amountAtomic));
  const fee = sum(rows.map((row) => row.networkFeeAtomic));
  return {
    ...head(request, coin),
    rows: rows.map((row) => ({
      timestampMs: row.timestampMs,
      timeUtc: new Date(row.timestampMs).toISOString(),
      batchId: row.batchId,
      transactionHash: row.transactionHash,
      amountAtomic: row.amountAtomic.toString(),
      amountCoins: coins(row.amountAtomic),
      networkFeeAtomic: row.networkFeeAtomic.toString(),
      networkFeeCoins: coins(row.networkFeeAtomic),
    })),
    totals: {
      amountAtomic: amount.toString(),
      amountCoins: coins(amount),
      networkFeeAtomic: fee.toString(),
      networkFeeCoins: coins(fee),
    },
  };
}

export async function rewardsExport(
  accounts: MinerAccountsReader | null,
  request: ExportRequest,
  coin: CoinUnits,
): Promise<RewardsExport> {
  const offset = (request.page - 1) * request.limit;
  const rows: MinerRewardView[] =
    accounts === null ? [] : await accounts.listRewards(request.address, { offset, limit: request.limit });
  const amount = sum(rows.map((row) => row.amountAtomic));
  return {
    ...head(request, coin),
    rows: rows.map((row) => ({
      timestampMs: row.timestampMs,
      timeUtc: new Date(row.timestampMs).toISOString(),
      kind: row.kind,
      blockHash: row.blockHash,
      amountAtomic: row.amountAtomic.toString(),
      amountCoins: atomicToDecimal(row.amountAtomic, coin.decimals),
    })),
    totals: { amountAtomic: amount.toString(), amountCoins: atomicToDecimal(amount, coin.decimals) },
  };
}

/** The CSV of an export: the same rows, columns named in snake case, coins named by the symbol. */
export function exportCsv(exported: PaymentsExport | RewardsExport): string {
  const unit = exported.symbol.toLowerCase();
  if ('networkFeeAtomic' in exported.totals) {
    const rows = (exported as PaymentsExport).rows;
    return toCsv(
      [
        'time_utc',
        'timestamp_ms',
        'batch_id',
        'transaction_hash',
        'amount_atomic',
        `amount_${unit}`,
        'network_fee_atomic',
        `network_fee_${unit}`,
      ],
      rows.map((row) => [
        row.timeUtc,
        String(row.timestampMs),
        row.batchId,
        row.transactionHash,
        row.amountAtomic,
        row.amountCoins,
        row.networkFeeAtomic,
        row.networkFeeCoins,
      ]),
    );
  }
  const rows = (exported as RewardsExport).rows;
  return toCsv(
    ['time_utc', 'timestamp_ms', 'kind', 'block_hash', 'amount_atomic', `amount_${unit}`],
    rows.map((row) => [
      row.timeUtc,
      String(row.timestampMs),
      row.kind,
      row.blockHash,
      row.amountAtomic,
      row.amountCoins,
    ]),
  );
}
