import type { NamedRecipient, UnknownPayment } from '../../../model/payouts/payout-watch.js';
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
  args: [
    'now',
    'txHash',
    'mode',
    'note',
    'historyMax',
    'paymentsMax',
    'fee',
    'batchId',
    'unnamed',
    'recipients',
  ],
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
 * `mode` is paid | dismiss; one item per account paid (none to dismiss): the account's balance,
 * history and payments keys, the account and the amount it was paid. `unnamed` is what the caller
 * read as the entry's amount to recipients its wallet record does not name ("0": none); a
 * "paid" whose entry has one refuses (RECIPIENTS_UNKNOWN) unless `recipients` (JSON, "" for
 * none) names whom the operator says it paid: those are among the items, and the entry keeps them.
 */
export const RESOLVE_UNKNOWN_LUA = payoutScriptLua(
  LAYOUT,
  `
local raw = redis.call('HGET', unknownKey, txHash)
if not raw then return {0, 'BATCH_NOT_FOUND', txHash} end
local entry = cjson.decode(raw)
if entry.status ~= 'unresolved' then return {0, 'BATCH_STATE', entry.status} end
local entryUnnamed = entry.unnamed
if entryUnnamed == nil or entryUnnamed == '' then entryUnnamed = '0' end
if entryUnnamed ~= unnamed then return {0, 'BATCH_STATE', 'unnamed amount ' .. entryUnnamed} end
if mode == 'paid' and entryUnnamed ~= '0' and recipients == '' then
  return {0, 'RECIPIENTS_UNKNOWN', txHash}
end
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
  if recipients ~= '' then entry.recipients = cjson.decode(recipients) end
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
  /**
   * Whom the operator names for the payment's `unnamedAtomic` ("paid" only; required when it is
   * above zero): debited like its transfers' accounts, and kept with the entry.
   */
  readonly recipients?: readonly NamedRecipient[];
}

/** Builds resolve_unknown_payment's call; the note is kept to its first 200 characters. */
export function buildResolveUnknownCall(ctx: PayoutCallContext, request: ResolveUnknownRequest): ScriptCall {
  const { payment, mode, accounts } = request;
  if (mode === 'paid' && accounts.length !== payment.transfers.length) {
    throw new PaymentStoreError('INVALID_AMOUNT', 'one account per transfer is needed', {
      txHash: payment.txHash,
    });
  }
  const recipients = mode === 'paid' ? (request.recipients ?? []) : [];
  const paid: NamedRecipient[] =
    mode === 'paid'
      ? [
          ...payment.transfers.map((t, i) => ({ address: accounts[i]!, amountAtomic: t.amountAtomic })),
          ...recipients,
        ]
      : [];
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
      unnamed: amountArg(payment.unnamedAtomic, 'unnamed amount'),
      // Amounts as strings: cjson would turn numbers into doubles.
      recipients:
        recipients.length === 0
          ? ''
          : JSON.stringify(
              recipients.map((r) => ({ a: r.address, amt: amountArg(r.amountAtomic, 'recipient amount') })),
            ),
    },
    items: paid.map(({ address: account, amountAtomic }) => ({
      keys: {
        balanceKey: keys.balance(account),
        historyKey: keys.history(account),
        paymentsKey: keys.payments(account),
      },
      args: { account, amount: amountArg(amountAtomic, 'transfer amount') },
    })),
  });
}
