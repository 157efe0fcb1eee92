import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { accountItems, payoutScriptLayout, payoutScriptLua } from './money-script.js';
import { settlementCallBase } from './settle-orphaned-block.js';

const LAYOUT = payoutScriptLayout({
  keys: ['blockKey', 'clawbackKey', 'restoredKey', 'totalsKey', 'payableKey'],
  args: ['hash', 'note', 'now', 'historyMax'],
  itemKeys: ['balanceKey', 'historyKey'],
  itemArgs: ['address', 'amount'],
});

/**
 * credit_back_clawback: the operator gives back what settle_orphaned_block clawed back of a block
 * that a later reorg put back on the main chain (note_restored_block listed it in
 * `<p>:blocks:restored-after-clawback`), under the payout lock. Each account gets exactly what
 * its clawback record says it was debited (the exact inverse of the clawback: `credited`,
 * `balance`, the totals' `adjustments`, a history entry 'orphan-credit-back' with the block hash
 * as ref). One item per account of the clawback record, which must match it exactly.
 * The record gets creditedBackAtMs and leaves the restored list.
 * Refuses, before any write: BLOCK_NOT_FOUND, BLOCK_NOT_RESTORED (not clawed back, not restored,
 * or credited back already), BLOCK_STATE, CORRUPT_BALANCE. Returns {1, clawedBackAtomic}.
 */
export const CREDIT_BACK_CLAWBACK_LUA = payoutScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'settlement', 'restoredAfterSettlementAtMs',
  'creditedBackAtMs', 'clawedBackAtomic')
if not record[1] then return {0, 'BLOCK_NOT_FOUND', hash} end
if record[2] ~= 'clawed-back' or not record[3] or record[4]
  or not redis.call('ZSCORE', restoredKey, hash) then
  return {0, 'BLOCK_NOT_RESTORED', hash}
end
local bad = unwritable(totalsKey, 'hash', 'credited', 'balance', 'adjustments')
  or unwritable(payableKey, 'zset')
local refusal = items_match_record(clawbackKey, itemCount, item_args, item_keys, 'clawback record changed')
if refusal and refusal[1] == 'BLOCK_STATE' then return {0, refusal[1], refusal[2]} end
bad = bad or (refusal and refusal[2])
if bad then return {0, 'CORRUPT_BALANCE', bad} end
for i = 1, itemCount do
  local credit, itemKeys = item_args(i), item_keys(i)
  local amount, balanceKey = credit.amount, itemKeys.balanceKey
  if amount ~= '0' then
    local account = {balanceKey = balanceKey, totalsKey = totalsKey, payableKey = payableKey,
      historyKey = itemKeys.historyKey, historyMax = historyMax, address = credit.address}
    adjust_account(account, amount, 'orphan-credit-back', hash, now)
  end
end
redis.call('HSET', blockKey, 'creditedBackAtMs', now, 'creditBackNote', note)
redis.call('ZREM', restoredKey, hash)
return {1, record[5] or '0'}
`,
);

export interface CreditBackClawbackRequest {
  readonly hash: string;
  /** The block's clawback record as read: address -> what the clawback debited it. */
  readonly clawback: ReadonlyMap<string, bigint>;
  /** Kept to its first 200 characters. */
  readonly note: string;
}

export function buildCreditBackClawbackCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  writer: { readonly fencingToken: string; readonly lockToken: string },
  request: CreditBackClawbackRequest,
  settings: { readonly nowMs: number; readonly historyMaxLength: number },
): ScriptCall {
  const { payments, shares } = keys;
  const base = settlementCallBase(payments, writer, request, settings);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      blockKey: shares.block(request.hash),
      clawbackKey: payments.blockClawback(request.hash),
      restoredKey: payments.blocksRestoredAfterClawback,
    },
    args: base.args,
    items: accountItems(payments, request.clawback, 'clawback'),
  });
}
