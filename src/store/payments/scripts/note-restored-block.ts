import type { NoteRestoredBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey', 'flaggedKey', 'restoredKey'],
  args: ['hash', 'height', 'now'],
});

/**
 * note_restored_block: a block flagged orphaned after credit whose own hash a later reorg put back
 * at its height, while the reorg watch still checks it. Not settled yet: unflagged (the flag's
 * fields go, `restoredAtMs` is set, it leaves the flagged set) and watched again like any credited
 * block; its credits were never touched. Settled already: `restoredAfterSettlementAtMs` is set,
 * once, and a clawed-back one is listed in `<p>:blocks:restored-after-clawback` (its miners are
 * owed the clawback again: the operator credits it back, nothing is re-credited here).
 * Returns {1, 'unflagged' | settlement}, or {2, ''} when there was nothing to do.
 */
export const NOTE_RESTORED_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'orphanedAfterCreditAtMs', 'settledAtMs',
  'settlement', 'restoredAfterSettlementAtMs')
if record[1] ~= 'confirmed' or not record[2] then return {2, ''} end
if not record[3] then
  redis.call('HDEL', blockKey, 'orphanedAfterCreditAtMs', 'observedHash', 'orphanReason')
  redis.call('HSET', blockKey, 'restoredAtMs', now)
  redis.call('ZREM', flaggedKey, hash)
  return {1, 'unflagged'}
end
if record[5] then return {2, ''} end
redis.call('HSET', blockKey, 'restoredAfterSettlementAtMs', now)
if record[4] == 'clawed-back' then redis.call('ZADD', restoredKey, height, hash) end
return {1, record[4] or ''}
`,
);

export function buildNoteRestoredBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: NoteRestoredBlockRequest,
  nowMs: number,
): ScriptCall {
  const { hash, height, fencingToken = '' } = request;
  return LAYOUT.call({
    keys: {
      leaderKey: keys.payments.leaderToken,
      blockKey: keys.shares.block(hash),
      flaggedKey: keys.payments.blocksOrphanedAfterCredit,
      restoredKey: keys.payments.blocksRestoredAfterClawback,
    },
    args: { fencingToken, hash, height: String(height), now: String(nowMs) },
  });
}
