import type { PayoutBatch } from '../../../model/payouts/payout-batch.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { BATCH_ITEMS_LUA, balanceItems } from './batch-items.js';
import {
  type PayoutCallContext,
  payoutCallBase,
  payoutScriptLayout,
  payoutScriptLua,
} from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['batchKey', 'openKey', 'failedKey', 'totalsKey', 'payableKey'],
  args: ['now', 'reason', 'historyMax', 'tag', 'batchId', 'requiredState'],
  itemKeys: ['balanceKey', 'historyKey'],
});

/**
 * rollback_batch: the batch certainly did not go out; every debit returns to its balance. Acts
 * only on a batch in `requiredState` (prepared | sending). One item per transfer: its miner's
 * balance and history.
 */
export const ROLLBACK_BATCH_LUA = payoutScriptLua(
  LAYOUT,
  `${BATCH_ITEMS_LUA}
local state = redis.call('HGET', batchKey, 'state')
if not state then return {0, 'BATCH_NOT_FOUND', ''} end
if state ~= requiredState then return {0, 'BATCH_STATE', state} end
local items = batch_items(batchKey)
if not items then return {0, 'BATCH_STATE', 'keys do not match the batch'} end
for i, item in ipairs(items) do
  local itemKeys = item_keys(i)
  local balanceKey = itemKeys.balanceKey
  redis.call('HINCRBY', balanceKey, 'inPayout', negate(item.deb))
  redis.call('HINCRBY', balanceKey, 'balance', item.deb)
  redis.call('HINCRBY', totalsKey, 'inPayout', negate(item.deb))
  redis.call('HINCRBY', totalsKey, 'balance', item.deb)
  local balance = index_payable(payableKey, totalsKey, balanceKey, item.a)
  history(itemKeys.historyKey, historyMax, 'payout-rollback', item.deb, batchId, balance, now)
end
redis.call('HSET', batchKey, 'state', 'failed', 'failReason', reason, 'resolvedAtMs', now,
  'updatedAtMs', now)
redis.call('ZREM', openKey, batchId)
redis.call('ZADD', failedKey, now, batchId)
return {1}
`,
);

/** The reason is kept to its first 500 characters. */
export function buildRollbackBatchCall(
  ctx: PayoutCallContext,
  batch: PayoutBatch,
  reason: string,
  requiredState: 'prepared' | 'sending',
): ScriptCall {
  const { keys } = ctx;
  const base = payoutCallBase(ctx);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      batchKey: keys.batch(batch.id),
      openKey: keys.batchesOpen,
      failedKey: keys.batchesFailed,
      totalsKey: keys.totals,
      payableKey: keys.payable,
    },
    args: {
      ...base.args,
      reason: reason.slice(0, 500),
      historyMax: String(ctx.historyMaxLength),
      tag: keys.tag,
      batchId: batch.id,
      requiredState,
    },
    items: balanceItems(keys, batch),
  });
}
