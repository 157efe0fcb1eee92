import type { NoteReorphanedBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey', 'flaggedKey', 'settledKey', 'restoredKey', 'clawbackKey', 'creditedBackKey'],
  args: ['hash', 'height', 'observedHash', 'reason', 'now'],
});

/**
 * note_reorphaned_block: a settled block that a later reorg restored (note_restored_block set
 * `restoredAfterSettlementAtMs`) is replaced at its height again, while the reorg watch still
 * checks it. No balance changes here, in any case:
 * - not credited back (absorbed, or clawed back with the credit back still owed): the restore is
 *   undone. `restoredAfterSettlementAtMs` goes, `observedHash`, `orphanReason` and
 *   `reorphanedAtMs` are set, and a clawed-back block leaves `<p>:blocks:restored-after-clawback`,
 *   so no credit back is owed or can be made any more (credit_back_clawback refuses it). Its
 *   settlement stands as made. Returns {1, settlement}.
 * - credited back (the miners hold its credits again, exactly as before the clawback): it is a
 *   credited block orphaned after credit once more, so it is flagged again for the operator. The
 *   settlement's fields go from the record (a summary is appended to `priorSettlements`), each
 *   account's clawback, given back already, is added to `<p>:block:<hash>:clawback:credited-back`
 *   and the clawback record is emptied (the next settlement writes its own), and the block moves
 *   from the settled set to the flagged one with a new `orphanedAfterCreditAtMs`. Returns {1, 'reflagged'}.
 * Anything else (not confirmed, not settled, not restored) is left alone: {2, ''}.
 */
export const NOTE_REORPHANED_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'settledAtMs', 'settlement',
  'restoredAfterSettlementAtMs', 'creditedBackAtMs', 'clawedBackAtomic')
if record[1] ~= 'confirmed' or not record[2] or not record[4] then return {2, ''} end
if not record[5] then
  redis.call('HDEL', blockKey, 'restoredAfterSettlementAtMs')
  redis.call('HSET', blockKey, 'observedHash', observedHash, 'orphanReason', reason, 'reorphanedAtMs', now)
  redis.call('ZREM', restoredKey, hash)
  return {1, record[3] or ''}
end
local clawback = redis.call('HGETALL', clawbackKey)
for i = 1, #clawback, 2 do redis.call('HINCRBY', creditedBackKey, clawback[i], clawback[i + 1]) end
redis.call('DEL', clawbackKey)
local prior = redis.call('HGET', blockKey, 'priorSettlements')
local summary = (record[3] or '') .. ' ' .. record[2] .. ' clawed back ' .. (record[6] or '0')
  .. ', restored ' .. record[4] .. ', credited back ' .. record[5]
if prior then summary = prior .. '; ' .. summary end
redis.call('HDEL', blockKey, 'settledAtMs', 'settlement', 'settleNote', 'clawedBackAtomic',
  'uncollectedAtomic', 'restoredAfterSettlementAtMs', 'creditedBackAtMs', 'creditBackNote')
redis.call('HSET', blockKey, 'priorSettlements', summary, 'orphanedAfterCreditAtMs', now,
  'observedHash', observedHash, 'orphanReason', reason, 'reorphanedAtMs', now)
redis.call('ZREM', settledKey, hash)
redis.call('ZADD', flaggedKey, height, hash)
return {1, 'reflagged'}
`,
);

export function buildNoteReorphanedBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: NoteReorphanedBlockRequest,
  nowMs: number,
): ScriptCall {
  const { hash, height, observedHash, reason, fencingToken = '' } = request;
  const { payments } = keys;
  return LAYOUT.call({
    keys: {
      leaderKey: payments.leaderToken,
      blockKey: keys.shares.block(hash),
      flaggedKey: payments.blocksOrphanedAfterCredit,
      settledKey: payments.blocksOrphanSettled,
      restoredKey: payments.blocksRestoredAfterClawback,
      clawbackKey: payments.blockClawback(hash),
      creditedBackKey: payments.blockClawbackCreditedBack(hash),
    },
    args: { fencingToken, hash, height: String(height), observedHash, reason, now: String(nowMs) },
  });
}
