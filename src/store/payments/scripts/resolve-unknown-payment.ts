import type { UnknownPayment } from '../../../model/payouts/payout-watch.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { amountArg, PaymentStoreError } from '../payment-store-error.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['unknownKey', 'totalsKey', 'payableKey', 'txsKey'],
  args: ['now', 'txHash', 'mode', 'note', 'historyMax', 'paymentsMax', 'fee', 'batchId'],
  itemKeys: ['balanceKey', 'historyKey', 'paymentsKey'],
  itemArgs: ['account', 'amount'],
});

/**
 * resolve_unknown_payment: the operator's decision about an unknown tagged transaction.
 * "paid": each recipient account is debited what the transaction paid it (balance -> paid, which
 * may take the balance below zero: the miner was paid, later credits settle it), the fee goes to
 * the pool's network fees, a payment record and a history entry are written, and the transaction
 * joins the tx index. "dismiss": no balance changes (the operator accounted for it otherwise).
 * Only an unresolved entry is resolved; under the payout lock, so no runner pays meanwhile.
 * `mode` is paid | dismiss; one item per transfer (none to dismiss): the account's balance,
 * history and payments keys, the account and the amount it was paid.
 */
export const RESOLVE_UNKNOWN_LUA = payoutScriptLua(
  LAYOUT,
  `
local raw = redis.call('HGET', unknownKey, txHash)
if not raw then return {0, 'BATCH_NOT_FOUND', txHash} end
local entry = cjson.decode(raw)
if entry.status ~= 'unresolved' then return {0, 'BATCH_STATE', entry.status} end
if mode == 'paid' then
  for i = 1, itemCount do
    local transfer, itemKeys = item_args(i), item_keys(i)
    local account, amount = transfer.account, transfer.amount
    local balanceKey = itemKeys.balanceKey
    redis.call('HINCRBY', balanceKey, 'balance', negate(amount))
    redis.call('HINCRBY', balanceKey, 'paid', amount)
    redis.call('HINCRBY', totalsKey, 'balance', negate(amount))
    redis.call('HINCRBY', totalsKey, 'paid', amount)
    local balance = index_payable(payableKey, totalsKey, balanceKey, account)
    history(itemKeys.historyKey, historyMax, 'payout-adopted', negate(amount), batchId .. ':' .. txHash, balance, now)
    redis.call('LPUSH', itemKeys.paymentsKey, cjson.encode({batchId = batchId, txHash = txHash,
      amountAtomic = amount, networkFeeAtomic = '0', timestampMs = now}))
    redis.call('LTRIM', itemKeys.paymentsKey, 0, tonumber(paymentsMax) - 1)
  end
  redis.call('HINCRBY', totalsKey, 'poolNetworkFees', fee)
  redis.call('HSET', txsKey, txHash, batchId)
  entry.status = 'recorded-as-paid'
else
  entry.status = 'dismissed'
end
entry.resolvedAtMs = now
entry.resolvedNote = note
redis.call('HSET', unknownKey, txHash, cjson.encode(entry))
return {1, entry.status}
`,
);

export interface ResolveUnknownRequest {
  readonly payment: UnknownPayment;
  readonly mode: 'paid' | 'dismiss';
  readonly note: string;
  /** The miner accounts the payment's transfers paid, in the order of `payment.transfers`. */
  readonly accounts: readonly string[];
}

/** Builds resolve_unknown_payment's call; the note is kept to its first 200 characters. */
export function buildResolveUnknownCall(ctx: PayoutCallContext, request: ResolveUnknownRequest): ScriptCall {
  const { payment, mode, accounts } = request;
  const transfers = mode === 'paid' ? payment.transfers : [];
  if (mode === 'paid' && accounts.length !== transfers.length) {
    throw new PaymentStoreError('INVALID_AMOUNT', 'one account per transfer is needed', {
      txHash: payment.txHash,
    });
  }
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      unknownKey: keys.payoutUnknown,
      totalsKey: keys.totals,
      payableKey: keys.payable,
      txsKey: keys.payoutTransactions,
    },
    args: {
      ...base.args,
      txHash: payment.txHash,
      mode,
      note: request.note.slice(0, 200),
      historyMax: String(ctx.historyMaxLength),
      paymentsMax: String(ctx.paymentsMaxLength),
      fee: amountArg(payment.feeAtomic, 'fee'),
      batchId: payment.batchId,
    },
    items: transfers.map((t, i) => {
      const account = accounts[i]!;
      return {
        keys: {
          balanceKey: keys.balance(account),
          historyKey: keys.history(account),
          paymentsKey: keys.payments(account),
        },
        args: { account, amount: amountArg(t.amountAtomic, 'transfer amount') },
      };
    }),
  });
}
