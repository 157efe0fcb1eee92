import { feeRefunds, poolFeeShare } from '../../../model/payouts/fee-refunds.js';
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
  keys: ['batchKey', 'openKey', 'failedKey', 'totalsKey', 'txsKey', 'payableKey', 'unconfirmedKey'],
  args: [
    'now',
    'txHash',
    'actualFee',
    'poolNetworkFee',
    'historyMax',
    'paymentsMax',
    'tag',
    'resolution',
    'batchId',
    'feeRefundsJson',
  ],
  itemKeys: ['balanceKey', 'historyKey', 'paymentsKey'],
  itemArgs: ['refund', 'netFee'],
});

/**
 * mark_sent: the wallet's transaction is known. in-payout -> paid (+ the miners' fee shares),
 * payment records, tx hash index. Idempotent: a sent batch answers {2, its tx hash}. A batch that
 * was rolled back (failed) and then turns out to have gone out is re-debited from the balance
 * (which may go negative: the miner was paid, later credits settle it) - the money stays right.
 * The batch joins the unconfirmed set until its transaction is deep in the chain (or the wallet
 * drops it: revert_sent). One item per transfer: its miner's balance, history and payments, what
 * the miner gets back of a fee share above its part of the fee the wallet paid (`refund`, credited
 * to the balance with its own history entry; kept in the batch as `feeRefunds` for revert_sent)
 * and the fee share less it (`netFee`, the miner's network fee). Marking the batch sent is what
 * refunds, so a refund happens exactly once whichever path marks it. `poolNetworkFee` is signed.
 */
export const MARK_SENT_LUA = payoutScriptLua(
  LAYOUT,
  `${BATCH_ITEMS_LUA}${FEE_REFUND_LUA}
local state = redis.call('HGET', batchKey, 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state == 'sent' then return {2, redis.call('HGET', batchKey, 'txHash') or ''} end
local items = batch_items(batchKey)
if not items or #items ~= itemCount then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
if not refunds_fit(items) then return {0, 'BATCH_STATE', 'a fee refund exceeds its fee share'} end
local late = state == 'failed'
local ref = batchId .. ':' .. txHash
for i, item in ipairs(items) do
  local itemKeys, settled = item_keys(i), item_args(i)
  local balanceKey = itemKeys.balanceKey
  if late then
    redis.call('HINCRBY', balanceKey, 'balance', negate(item.deb))
    redis.call('HINCRBY', totalsKey, 'balance', negate(item.deb))
  else
    redis.call('HINCRBY', balanceKey, 'inPayout', negate(item.deb))
    redis.call('HINCRBY', totalsKey, 'inPayout', negate(item.deb))
  end
  redis.call('HINCRBY', balanceKey, 'paid', item.amt)
  redis.call('HINCRBY', balanceKey, 'networkFees', settled.netFee)
  redis.call('HINCRBY', totalsKey, 'paid', item.amt)
  redis.call('HINCRBY', totalsKey, 'networkFees', settled.netFee)
  local balance = index_payable(payableKey, totalsKey, balanceKey, item.a)
  local reason = 'payout-sent'
  local amount = item.amt
  if late then reason = 'payout-late-found'; amount = negate(item.deb) end
  history(itemKeys.historyKey, historyMax, reason, amount, ref, balance, now)
  if settled.refund ~= '0' then refund_fee(itemKeys, item, settled.refund, ref) end
  redis.call('LPUSH', itemKeys.paymentsKey, cjson.encode({batchId = batchId, txHash = txHash,
    amountAtomic = item.amt, networkFeeAtomic = settled.netFee, timestampMs = now}))
  redis.call('LTRIM', itemKeys.paymentsKey, 0, tonumber(paymentsMax) - 1)
end
redis.call('HINCRBY', totalsKey, 'poolNetworkFees', poolNetworkFee)
redis.call('HSET', batchKey, 'state', 'sent', 'txHash', txHash, 'actualFee', actualFee,
  'feeRefunds', feeRefundsJson, 'resolution', resolution, 'resolvedAtMs', now, 'updatedAtMs', now)
redis.call('ZREM', openKey, batchId)
redis.call('ZREM', failedKey, batchId)
redis.call('HSET', txsKey, txHash, batchId)
redis.call('ZADD', unconfirmedKey, now, batchId)
return {1, txHash}
`,
);

export interface SentOutcome {
  readonly txHash: string;
  readonly actualFeeAtomic: bigint;
  readonly resolution: string;
}

export function buildMarkSentCall(
  ctx: PayoutCallContext,
  batch: PayoutBatch,
  outcome: SentOutcome,
): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  const refunds = feeRefunds(batch.transfers, outcome.actualFeeAtomic);
  const poolShare = poolFeeShare(batch.transfers, outcome.actualFeeAtomic, refunds);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      batchKey: keys.batch(batch.id),
      openKey: keys.batchesOpen,
      failedKey: keys.batchesFailed,
      totalsKey: keys.totals,
      txsKey: keys.payoutTransactions,
      payableKey: keys.payable,
      unconfirmedKey: keys.batchesUnconfirmed,
    },
    args: {
      ...base.args,
      txHash: outcome.txHash,
      actualFee: amountArg(outcome.actualFeeAtomic, 'actualFee'),
      poolNetworkFee: amountArg(poolShare, 'poolNetworkFee', true),
      historyMax: String(ctx.historyMaxLength),
      paymentsMax: String(ctx.paymentsMaxLength),
      tag: keys.tag,
      resolution: outcome.resolution,
      batchId: batch.id,
      feeRefundsJson: JSON.stringify(refunds.map(String)),
    },
    items: feeSettlementItems(keys, batch, refunds),
  });
}
