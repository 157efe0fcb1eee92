import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { accountItems, payoutScriptLayout, payoutScriptLua } from './money-script.js';

const LAYOUT = payoutScriptLayout({
  keys: ['blockKey', 'creditsKey', 'clawbackKey', 'flaggedKey', 'settledKey', 'totalsKey', 'payableKey'],
  args: ['hash', 'mode', 'note', 'now', 'historyMax'],
  itemKeys: ['balanceKey', 'historyKey'],
  itemArgs: ['address', 'amount'],
});

/**
 * settle_orphaned_block: the operator's settlement of a credited block a deep reorg orphaned
 * (flagged by flag_orphaned_after_credit), under the payout lock so that no payout pass runs
 * meanwhile. `mode` absorb: no balance changes (the pool bears the loss). `mode` clawback: each
 * credit of the block's credits record is taken back from its account, at most down to a zero
 * balance (what was paid out, is in a payout or was spent cannot be taken): `credited` and
 * `balance` go down, in the totals too, where `adjustments` goes down by as much (so rewards +
 * adjustments = credited + poolFees holds), and a history entry 'orphan-clawback' (ref the block
 * hash) is written; `<p>:block:<hash>:clawback` keeps what each account was debited. One item per
 * credit (none to absorb): the account's balance and history keys, the address and the credit,
 * which must be the credits record's exactly (refused BLOCK_STATE otherwise).
 * The record gets settledAtMs, settlement (absorbed | clawed-back), settleNote, clawedBackAtomic
 * and uncollectedAtomic (the rest of the credits: all of them when absorbed), and moves from the
 * flagged set to the settled one.
 * Refuses, before any write: BLOCK_NOT_FOUND, BLOCK_SETTLED, BLOCK_NOT_FLAGGED, CORRUPT_BALANCE.
 * Returns {1, clawedBackAtomic, uncollectedAtomic}.
 */
export const SETTLE_ORPHANED_BLOCK_LUA = payoutScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'orphanedAfterCreditAtMs', 'settledAtMs', 'height')
if not record[1] then return {0, 'BLOCK_NOT_FOUND', hash} end
if record[3] then return {0, 'BLOCK_SETTLED', hash} end
if record[1] ~= 'confirmed' or not record[2] or not redis.call('ZSCORE', flaggedKey, hash) then
  return {0, 'BLOCK_NOT_FLAGGED', hash}
end
local credits = redis.call('HGETALL', creditsKey)
for i = 2, #credits, 2 do
  if not is_integer(credits[i]) then return {0, 'CORRUPT_BALANCE', creditsKey} end
end
if mode == 'clawback' then
  local bad = unwritable(totalsKey, 'hash', 'credited', 'balance', 'adjustments')
    or unwritable(payableKey, 'zset') or unwritable(clawbackKey, 'hash')
  local refusal = items_match_record(creditsKey, itemCount, item_args, item_keys, 'credits record changed')
  if refusal and refusal[1] == 'BLOCK_STATE' then return {0, refusal[1], refusal[2]} end
  bad = bad or (refusal and refusal[2])
  if bad then return {0, 'CORRUPT_BALANCE', bad} end
elseif itemCount ~= 0 then
  return {0, 'BLOCK_STATE', 'absorb takes no items'}
end
redis.call('HSET', blockKey, 'clawedBackAtomic', '0', 'uncollectedAtomic', '0')
if mode == 'clawback' then
  for i = 1, itemCount do
    local credit, itemKeys = item_args(i), item_keys(i)
    local address, amount, balanceKey = credit.address, credit.amount, itemKeys.balanceKey
    local balance = field(balanceKey, 'balance')
    local debit = amount
    if not ge(balance, amount) then
      debit = balance
      if string.sub(balance, 1, 1) == '-' then debit = '0' end
    end
    if debit ~= '0' then
      local account = {balanceKey = balanceKey, totalsKey = totalsKey, payableKey = payableKey,
        historyKey = itemKeys.historyKey, historyMax = historyMax, address = address}
      adjust_account(account, negate(debit), 'orphan-clawback', hash, now)
    end
    redis.call('HSET', clawbackKey, address, debit)
    redis.call('HINCRBY', blockKey, 'clawedBackAtomic', debit)
    redis.call('HINCRBY', blockKey, 'uncollectedAtomic', amount)
    redis.call('HINCRBY', blockKey, 'uncollectedAtomic', negate(debit))
  end
else
  for i = 2, #credits, 2 do redis.call('HINCRBY', blockKey, 'uncollectedAtomic', credits[i]) end
end
local settlement = 'absorbed'
if mode == 'clawback' then settlement = 'clawed-back' end
redis.call('HSET', blockKey, 'settledAtMs', now, 'settlement', settlement, 'settleNote', note)
redis.call('ZREM', flaggedKey, hash)
redis.call('ZADD', settledKey, record[4] or '0', hash)
local totals = redis.call('HMGET', blockKey, 'clawedBackAtomic', 'uncollectedAtomic')
return {1, totals[1], totals[2]}
`,
);

export interface SettleOrphanedBlockRequest {
  readonly hash: string;
  readonly mode: 'absorb' | 'clawback';
  /** The block's credits record as read (clawback only): address -> what the block credited it. */
  readonly credits: ReadonlyMap<string, bigint>;
  /** Kept to its first 200 characters. */
  readonly note: string;
}

export function buildSettleOrphanedBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  writer: { readonly fencingToken: string; readonly lockToken: string },
  request: SettleOrphanedBlockRequest,
  settings: { readonly nowMs: number; readonly historyMaxLength: number },
): ScriptCall {
  const { payments, shares } = keys;
  const { hash, mode } = request;
  const base = settlementCallBase(payments, writer, request, settings);
  return LAYOUT.call({
    keys: {
      ...base.keys,
      blockKey: shares.block(hash),
      creditsKey: payments.blockCredits(hash),
      clawbackKey: payments.blockClawback(hash),
      flaggedKey: payments.blocksOrphanedAfterCredit,
      settledKey: payments.blocksOrphanSettled,
    },
    args: { ...base.args, mode },
    items: mode === 'clawback' ? accountItems(payments, request.credits, 'credit') : [],
  });
}

/** The names settle_orphaned_block and credit_back_clawback share, from the caller's request. */
export function settlementCallBase(
  payments: PaymentKeys,
  writer: { readonly fencingToken: string; readonly lockToken: string },
  request: { readonly hash: string; readonly note: string },
  settings: { readonly nowMs: number; readonly historyMaxLength: number },
) {
  return {
    keys: {
      leaderKey: payments.leaderToken,
      lockKey: payments.payoutLock,
      totalsKey: payments.totals,
      payableKey: payments.payable,
    },
    args: {
      fencingToken: writer.fencingToken,
      lockToken: writer.lockToken,
      hash: request.hash,
      note: request.note.slice(0, 200),
      now: String(settings.nowMs),
      historyMax: String(settings.historyMaxLength),
    },
  };
}
