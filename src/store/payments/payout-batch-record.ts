import type { BatchState, PayoutBatch } from '../../model/payouts/payout-batch.js';
import { PaymentStoreError, parseStoredAmount } from './payment-store-error.js';

/** A `<p>:payout:batch:<id>` hash as prepare_batch and the later steps wrote it. */
export function parseBatch(raw: Record<string, string>): PayoutBatch {
  const id = raw['id'] ?? '';
  const bad = (what: string): never => {
    throw new PaymentStoreError('CORRUPT_BALANCE', `corrupt payout batch ${what}`, { id, what });
  };
  const state = raw['state'];
  if (state !== 'prepared' && state !== 'sending' && state !== 'sent' && state !== 'failed') bad('state');
  let items: Array<Record<string, string>>;
  try {
    items = JSON.parse(raw['transfers'] ?? '') as Array<Record<string, string>>;
  } catch {
    return bad('transfers');
  }
  const num = (name: string): number | null => (raw[name] === undefined ? null : Number(raw[name]));
  const text = (name: string): string | null => raw[name] ?? null;
  return {
    id,
    state: state as BatchState,
    createdAtMs: num('createdAtMs') ?? 0,
    updatedAtMs: num('updatedAtMs') ?? 0,
    transfers: items.map((item) => ({
      address: String(item['a']),
      destination: String(item['dst']),
      amountAtomic: parseStoredAmount(item['amt'], 'transfer amount'),
      feeShareAtomic: parseStoredAmount(item['fee'], 'transfer fee share'),
      debitAtomic: parseStoredAmount(item['deb'], 'transfer debit'),
    })),
    paymentId: raw['paymentId'] ?? '',
    totalDebitAtomic: parseStoredAmount(raw['totalDebit'], 'totalDebit'),
    totalAmountAtomic: parseStoredAmount(raw['totalAmount'], 'totalAmount'),
    networkFeeAtomic: parseStoredAmount(raw['networkFee'], 'networkFee'),
    feePaidBy: raw['feePaidBy'] === 'miners' ? 'miners' : 'pool',
    walletBlockCount: num('walletBlockCount') ?? 0,
    sendingAtMs: num('sendingAtMs'),
    txHash: text('txHash'),
    actualFeeAtomic: raw['actualFee'] === undefined ? null : parseStoredAmount(raw['actualFee'], 'actualFee'),
    feeRefundsAtomic: parseFeeRefunds(raw['feeRefunds'], bad),
    lastError: text('lastError'),
    lastErrorKind: text('lastErrorKind'),
    failReason: text('failReason'),
    resolution: text('resolution'),
    resolvedAtMs: num('resolvedAtMs'),
    unminedNotifiedAtMs: num('unminedNotifiedAtMs'),
  };
}

/** mark_sent's `feeRefunds`: a JSON list of decimal strings, one per transfer; null before it. */
function parseFeeRefunds(text: string | undefined, bad: (what: string) => never): bigint[] | null {
  if (text === undefined) return null;
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return bad('feeRefunds');
  }
  if (!Array.isArray(list)) return bad('feeRefunds');
  return list.map((item) => parseStoredAmount(String(item), 'fee refund'));
}
