import { poolFeeShare } from '../../../model/payouts/fee-refunds.js';
import type { PayoutBatch } from '../../../model/payouts/payout-batch.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { amountArg } from '../payment-store-error.js';
import { BATCH_ITEMS_LUA, FEE_REFUND_LUA, feeSettlementItems } from './batch-items.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'unconfirmedKey', 'walletMissingKey', 'failedKey', 'totalsKey', 'txsKey', 'payableKey'],
  args: ['now', 'reason', 'historyMax', 'paymentsMax', 'tag', 'batchId', 'poolNetworkFee'],
  itemKeys: ['balanceKey', 'historyKey', 'paymentsKey'],
  itemArgs: ['refund', 'netFee'],
});

/**
 * revert_sent: a sent batch whose transaction the wallet dropped (CANCELLED, FAILED or DELETED,
 * for longer than the runner waits), or that the operator refunded (the wallet had no record of it
 * and fuegod has it in neither its chain nor its pool): nothing reached the miners. paid -> balance, the fee shares
 * back, the pool's part of the fee back (`poolNetworkFee`, signed), a history entry and a payment
 * record saying so; the batch becomes failed. Should the transaction be mined after all,
 * mark_sent's late path debits again. A fee refund mark_sent gave is taken back first (its own
 * history entry, negative). One item per transfer: its miner's balance, history and payments, and
 * the refund and net fee mark_sent recorded (refused unless the refunds are the batch's
 * `feeRefunds`; a batch sent before refunds existed has none).
 */
export const REVERT_SENT_LUA = payoutScriptLua(
  LAYOUT,
  `${BATCH_ITEMS_LUA}${FEE_REFUND_LUA}
local state = redis.call('HGET', batchKey, 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= 'sent' then return {0, 'BATCH_STATE', state} end
local items = batch_items(batchKey)
if not items or #items ~= itemCount then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
local refunds = cjson.decode(redis.call('HGET', batchKey, 'feeRefunds') or '[]')
for i = 1, itemCount do
  if (refunds[i] or '0') ~= item_args(i).refund then
    return {0, 'BATCH_STATE', 'fee refunds do not match the batch'}
  end
end
local txHash = redis.call('HGET', batchKey, 'txHash') or ''
local ref = batchId .. ':' .. txHash
for i, item in ipairs(items) do
  local itemKeys, settled = item_keys(i), item_args(i)
  local balanceKey = itemKeys.balanceKey
  if settled.refund ~= '0' then refund_fee(itemKeys, item, negate(settled.refund), ref) end
  redis.call('HINCRBY', balanceKey, 'paid', negate(item.amt))
  redis.call('HINCRBY', balanceKey, 'networkFees', negate(settled.netFee))
  redis.call('HINCRBY', balanceKey, 'balance', item.deb)
  redis.call('HINCRBY', totalsKey, 'paid', negate(item.amt))
  redis.call('HINCRBY', totalsKey, 'networkFees', negate(settled.netFee))
  redis.call('HINCRBY', totalsKey, 'balance', item.deb)
  local balance = index_payable(payableKey, totalsKey, balanceKey, item.a)
  history(itemKeys.historyKey, historyMax, 'payout-reverted', item.deb, ref, balance, now)
  redis.call('LPUSH', itemKeys.paymentsKey, cjson.encode({batchId = batchId, txHash = txHash,
    amountAtomic = negate(item.amt), networkFeeAtomic = negate(settled.netFee), timestampMs = now,
    reverted = true}))
  redis.call('LTRIM', itemKeys.paymentsKey, 0, tonumber(paymentsMax) - 1)
end
redis.call('HINCRBY', totalsKey, 'poolNetworkFees', negate(poolNetworkFee))
redis.call('HSET', batchKey, 'state', 'failed', 'failReason', reason, 'revertedTxHash', txHash,
  'resolvedAtMs', now, 'updatedAtMs', now)
redis.call('HDEL', batchKey, 'txHash', 'feeRefunds')
redis.call('HDEL', txsKey, txHash)
redis.call('ZREM', unconfirmedKey, batchId)
redis.call('ZREM', walletMissingKey, batchId)
redis.call('ZADD', failedKey, now, batchId)
return {1}
`,
);

/** The reason is kept to its first 500 characters. */
export function buildRevertSentCall(ctx: PayoutCallContext, batch: PayoutBatch, reason: string): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  const actualFee = batch.actualFeeAtomic ?? batch.networkFeeAtomic;
  const refunds = batch.feeRefundsAtomic ?? batch.transfers.map(() => 0n);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      batchKey: keys.batch(batch.id),
      unconfirmedKey: keys.batchesUnconfirmed,
      walletMissingKey: keys.batchesWalletMissing,
      failedKey: keys.batchesFailed,
      totalsKey: keys.totals,
      txsKey: keys.payoutTransactions,
      payableKey: keys.payable,
    },
    args: {
      ...base.args,
      reason: reason.slice(0, 500),
      historyMax: String(ctx.historyMaxLength),
      paymentsMax: String(ctx.paymentsMaxLength),
      tag: keys.tag,
      batchId: batch.id,
      poolNetworkFee: amountArg(poolFeeShare(batch.transfers, actualFee, refunds), 'poolNetworkFee', true),
    },
    items: feeSettlementItems(keys, batch, refunds),
  });
}
