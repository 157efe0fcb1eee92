import { feeRefunds, poolFeeShare } from '../../../model/payouts/fee-refunds.js';
import {
  FEE_ASSUMED_RESOLUTION,
  FEE_READ_LATER_RESOLUTION,
  type PayoutBatch,
} from '../../../model/payouts/payout-batch.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { amountArg } from '../payment-store-error.js';
import { BATCH_ITEMS_LUA, FEE_REFUND_LUA, feeSettlementItems } from './batch-items.js';
import type { PayoutCallContext } from './money-script.js';
import { payoutCallBase, payoutScriptLayout, payoutScriptLua } from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'totalsKey', 'payableKey'],
  args: [
    'now',
    'txHash',
    'actualFee',
    'storedActualFee',
    'storedFeeRefundsJson',
    'feeRefundsJson',
    'poolNetworkFeeChange',
    'historyMax',
    'paymentsMax',
    'tag',
    'batchId',
    'assumedResolution',
    'settledResolution',
  ],
  itemKeys: ['balanceKey', 'historyKey', 'paymentsKey'],
  itemArgs: ['refund', 'netFee', 'refundChange'],
});

/**
 * settle_fee: a sent batch marked with its fee assumed (the wallet could not tell it right after
 * the send) gets the fee the wallet paid, as if mark_sent had known it. One item per transfer: its
 * miner's balance, history and payments, the refund mark_sent would have given (`refund`, between
 * 0 and the fee share), the miner's net fee (`netFee`) and what changes from the refund recorded
 * (`refundChange`, signed: credited to the balance and taken from the miner's network fees, with a
 * `payout-fee-refund` history entry). The miner's payment record of the transaction gets the net
 * fee in place; the pool's part of the fee moves by `poolNetworkFeeChange` (signed). Exactly once:
 * a batch no longer sent (reverted) or no longer `assumedResolution` (settled) answers {2, state}
 * and changes nothing; one whose transaction, fee or refunds differ from what the caller read is
 * refused (its changes were computed from another record).
 */
export const SETTLE_FEE_LUA = payoutScriptLua(
  LAYOUT,
  `${BATCH_ITEMS_LUA}${FEE_REFUND_LUA}
local state = redis.call('HGET', batchKey, 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= 'sent' or redis.call('HGET', batchKey, 'resolution') ~= assumedResolution then
  return {2, state}
end
if (redis.call('HGET', batchKey, 'txHash') or '') ~= txHash
  or (redis.call('HGET', batchKey, 'actualFee') or '') ~= storedActualFee
  or (redis.call('HGET', batchKey, 'feeRefunds') or '') ~= storedFeeRefundsJson then
  return {0, 'BATCH_STATE', 'the batch changed since it was read'}
end
local items = batch_items(batchKey)
if not items or #items ~= itemCount then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
if not refunds_fit(items) then return {0, 'BATCH_STATE', 'a fee refund exceeds its fee share'} end
-- the miner's payment record of this transaction (newest first), its fee set in place
local function set_payment_fee(paymentsKey, netFee)
  local records = redis.call('LRANGE', paymentsKey, 0, tonumber(paymentsMax) - 1)
  for index, raw in ipairs(records) do
    local record = cjson.decode(raw)
    if record.batchId == batchId and record.txHash == txHash and not record.reverted then
      record.networkFeeAtomic = netFee
      redis.call('LSET', paymentsKey, index - 1, cjson.encode(record))
      return
    end
  end
end
local ref = batchId .. ':' .. txHash
for i, item in ipairs(items) do
  local itemKeys, settled = item_keys(i), item_args(i)
  if settled.refundChange ~= '0' then
    redis.call('HINCRBY', itemKeys.balanceKey, 'networkFees', negate(settled.refundChange))
    redis.call('HINCRBY', totalsKey, 'networkFees', negate(settled.refundChange))
    refund_fee(itemKeys, item, settled.refundChange, ref)
  end
  set_payment_fee(itemKeys.paymentsKey, settled.netFee)
end
redis.call('HINCRBY', totalsKey, 'poolNetworkFees', poolNetworkFeeChange)
redis.call('HSET', batchKey, 'actualFee', actualFee, 'feeRefunds', feeRefundsJson,
  'resolution', settledResolution, 'feeSettledAtMs', now)
return {1}
`,
);

/**
 * The settle_fee call for `batch` as read (sent, its fee assumed) and the fee the wallet paid
 * (`paidAtomic`): the refunds are mark_sent's (feeRefunds), the changes are from what mark_sent
 * recorded.
 */
export function buildSettleFeeCall(
  ctx: PayoutCallContext,
  batch: PayoutBatch,
  paidAtomic: bigint,
): ScriptCall {
  const recordedFee = batch.actualFeeAtomic ?? batch.networkFeeAtomic;
  const recordedRefunds = batch.feeRefundsAtomic ?? batch.transfers.map(() => 0n);
  const refunds = feeRefunds(batch.transfers, paidAtomic);
  const poolShareChange =
    poolFeeShare(batch.transfers, paidAtomic, refunds) -
    poolFeeShare(batch.transfers, recordedFee, recordedRefunds);
  const { keys } = ctx;
  return LAYOUT.call({
    keys: {
      ...payoutCallBase(ctx).keys,
      batchKey: keys.batch(batch.id),
      totalsKey: keys.totals,
      payableKey: keys.payable,
    },
    args: {
      ...payoutCallBase(ctx).args,
      txHash: batch.txHash ?? '',
      actualFee: amountArg(paidAtomic, 'actualFee'),
      storedActualFee: batch.actualFeeAtomic === null ? '' : batch.actualFeeAtomic.toString(),
      storedFeeRefundsJson:
        batch.feeRefundsAtomic === null ? '' : JSON.stringify(batch.feeRefundsAtomic.map(String)),
      feeRefundsJson: JSON.stringify(refunds.map(String)),
      poolNetworkFeeChange: amountArg(poolShareChange, 'poolNetworkFeeChange', true),
      historyMax: String(ctx.historyMaxLength),
      paymentsMax: String(ctx.paymentsMaxLength),
      tag: keys.tag,
      batchId: batch.id,
      assumedResolution: FEE_ASSUMED_RESOLUTION,
      settledResolution: FEE_READ_LATER_RESOLUTION,
    },
    items: feeSettlementItems(keys, batch, refunds).map((item, i) => ({
      ...item,
      args: {
        ...item.args,
        refundChange: amountArg(refunds[i]! - (recordedRefunds[i] ?? 0n), 'fee refund change', true),
      },
    })),
  });
}
