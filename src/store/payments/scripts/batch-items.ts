import type { PayoutBatch } from '../../../model/payouts/payout-batch.js';
import type { PaymentKeys } from '../payment-keys.js';
import { amountArg } from '../payment-store-error.js';

/**
 * Lua shared by the payout scripts that act on a stored batch (mark_sent, rollback_batch,
 * revert_sent), after the layout's locals: batch_items(batchKey) decodes the batch's transfers and
 * checks that item i's `balanceKey` is the balance key of the i-th transfer's miner, so the keys
 * the caller declared (Redis Cluster) are the ones the batch names; nil when they are not.
 */
export const BATCH_ITEMS_LUA = `
local function batch_items(batchKey)
  local items = cjson.decode(redis.call('HGET', batchKey, 'transfers'))
  for i, item in ipairs(items) do
    if i > itemCount or item_keys(i).balanceKey ~= tag .. ':balance:' .. item.a then return nil end
  end
  return items
end
`;

/**
 * Lua shared by the scripts that settle a sent batch's fee shares (mark_sent, settle_fee,
 * revert_sent), after BATCH_ITEMS_LUA; they name `totalsKey`, `payableKey`, `historyMax` and `now`:
 * - refunds_fit(items): every item's `refund` argument is between 0 and its transfer's fee share;
 * - refund_fee(itemKeys, item, amount, ref): credits `amount` (negative: takes a refund back) to
 *   the item's miner and the totals, with its `payout-fee-refund` history entry.
 */
export const FEE_REFUND_LUA = `
local function refunds_fit(items)
  for i, item in ipairs(items) do
    local refund = item_args(i).refund
    if not ge(refund, '0') or not ge(item.fee, refund) then return false end
  end
  return true
end
local function refund_fee(itemKeys, item, amount, ref)
  redis.call('HINCRBY', itemKeys.balanceKey, 'balance', amount)
  redis.call('HINCRBY', totalsKey, 'balance', amount)
  local balance = index_payable(payableKey, totalsKey, itemKeys.balanceKey, item.a)
  history(itemKeys.historyKey, historyMax, 'payout-fee-refund', amount, ref, balance, now)
end
`;

/** One item per transfer of the batch: its miner's balance and history keys. */
export function balanceItems(keys: PaymentKeys, batch: PayoutBatch) {
  return batch.transfers.map((t) => ({
    keys: { balanceKey: keys.balance(t.address), historyKey: keys.history(t.address) },
  }));
}

/**
 * One item per transfer of the batch: its miner's balance, history and payments keys, and how its
 * fee share settled: `refund` (given back to the miner: refunds[i]) and `netFee` (the rest).
 */
export function feeSettlementItems(keys: PaymentKeys, batch: PayoutBatch, refunds: readonly bigint[]) {
  return batch.transfers.map((t, i) => {
    const refund = refunds[i] ?? 0n;
    return {
      keys: {
        balanceKey: keys.balance(t.address),
        historyKey: keys.history(t.address),
        paymentsKey: keys.payments(t.address),
      },
      args: {
        refund: amountArg(refund, 'fee refund'),
        netFee: amountArg(t.feeShareAtomic - refund, 'net fee share'),
      },
    };
  });
}
