import type { BatchTransfer, PrepareBatchRequest } from '../../../model/payouts/payout-batch.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { amountArg, PaymentStoreError } from '../payment-store-error.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'openKey', 'batchesKey', 'totalsKey', 'payableKey'],
  args: [
    'now',
    'batchId',
    'historyMax',
    'transfersJson',
    'totalDebit',
    'totalAmount',
    'networkFee',
    'feePaidBy',
    'paymentId',
    'walletBlockCount',
  ],
  itemKeys: ['balanceKey', 'historyKey'],
  itemArgs: ['address', 'debit'],
});

/**
 * prepare_batch: the payout intent. Debits every transfer from balance into in-payout, writes the
 * batch (state prepared) and its history entries, all or nothing. Refuses a miner whose balance is
 * short or who is already in an open batch (in-payout > 0): one open batch per miner keeps every
 * recovery decision about one batch only. One item per transfer: its miner's balance and history.
 */
export const PREPARE_BATCH_LUA = payoutScriptLua(
  LAYOUT,
  `
if redis.call('EXISTS', batchKey) == 1 then return {0, 'BATCH_EXISTS', batchId} end
for i = 1, itemCount do
  local transfer = item_args(i)
  local balanceKey = item_keys(i).balanceKey
  if not ge(field(balanceKey, 'balance'), transfer.debit) then
    return {0, 'INSUFFICIENT_BALANCE', transfer.address}
  end
  if field(balanceKey, 'inPayout') ~= '0' then return {0, 'INSUFFICIENT_BALANCE', transfer.address} end
end
for i = 1, itemCount do
  local transfer, itemKeys = item_args(i), item_keys(i)
  local address, debit = transfer.address, transfer.debit
  local balanceKey = itemKeys.balanceKey
  redis.call('HINCRBY', balanceKey, 'balance', negate(debit))
  redis.call('HINCRBY', balanceKey, 'inPayout', debit)
  redis.call('HINCRBY', totalsKey, 'balance', negate(debit))
  redis.call('HINCRBY', totalsKey, 'inPayout', debit)
  local balance = index_payable(payableKey, totalsKey, balanceKey, address)
  history(itemKeys.historyKey, historyMax, 'payout-debit', negate(debit), batchId, balance, now)
end
redis.call('HSET', batchKey, 'id', batchId, 'state', 'prepared', 'createdAtMs', now,
  'updatedAtMs', now, 'transfers', transfersJson, 'totalDebit', totalDebit, 'totalAmount', totalAmount,
  'networkFee', networkFee, 'feePaidBy', feePaidBy, 'paymentId', paymentId,
  'walletBlockCount', walletBlockCount)
redis.call('ZADD', openKey, now, batchId)
redis.call('ZADD', batchesKey, now, batchId)
return {1}
`,
);

/** Builds prepare_batch's call; throws INVALID_AMOUNT for transfers that do not add up. */
export function buildPrepareBatchCall(ctx: PayoutCallContext, request: PrepareBatchRequest): ScriptCall {
  const { transfers } = request;
  const { totalDebit, totalAmount } = checkedTotals(request);
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      batchKey: keys.batch(request.id),
      openKey: keys.batchesOpen,
      batchesKey: keys.batches,
      totalsKey: keys.totals,
      payableKey: keys.payable,
    },
    args: {
      ...base.args,
      batchId: request.id,
      historyMax: String(ctx.historyMaxLength),
      transfersJson: encodeTransfers(transfers),
      totalDebit: amountArg(totalDebit, 'totalDebit'),
      totalAmount: amountArg(totalAmount, 'totalAmount'),
      networkFee: amountArg(request.networkFeeAtomic, 'networkFee'),
      feePaidBy: request.feePaidBy,
      paymentId: request.paymentId,
      walletBlockCount: String(request.walletBlockCount),
    },
    items: transfers.map((t) => ({
      keys: { balanceKey: keys.balance(t.address), historyKey: keys.history(t.address) },
      args: { address: t.address, debit: amountArg(t.debitAtomic, 'debit') },
    })),
  });
}

/** A batch pays each miner once, and each transfer's debit is its amount plus its fee share. */
function checkedTotals(request: PrepareBatchRequest): { totalDebit: bigint; totalAmount: bigint } {
  const { transfers } = request;
  if (transfers.length === 0) throw new PaymentStoreError('INVALID_AMOUNT', 'a batch needs transfers');
  const addresses = new Set(transfers.map((t) => t.address));
  if (addresses.size !== transfers.length) {
    throw new PaymentStoreError('INVALID_AMOUNT', 'a miner appears twice in one batch', { id: request.id });
  }
  let totalDebit = 0n;
  let totalAmount = 0n;
  for (const t of transfers) {
    if (
      t.amountAtomic <= 0n ||
      t.feeShareAtomic < 0n ||
      t.debitAtomic !== t.amountAtomic + t.feeShareAtomic
    ) {
      throw new PaymentStoreError('INVALID_AMOUNT', 'transfer amounts do not add up', {
        address: t.address,
      });
    }
    totalDebit += t.debitAtomic;
    totalAmount += t.amountAtomic;
  }
  return { totalDebit, totalAmount };
}

/** JSON with every amount as a decimal string (Lua's cjson would turn numbers into doubles). */
function encodeTransfers(transfers: readonly BatchTransfer[]): string {
  return JSON.stringify(
    transfers.map((t) => ({
      a: t.address,
      dst: t.destination,
      amt: t.amountAtomic.toString(),
      fee: t.feeShareAtomic.toString(),
      deb: t.debitAtomic.toString(),
    })),
  );
}
