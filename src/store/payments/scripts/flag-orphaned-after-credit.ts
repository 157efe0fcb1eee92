import type { FlagOrphanedAfterCreditRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey', 'flaggedKey'],
  args: ['hash', 'height', 'observedHash', 'reason', 'now'],
});

/**
 * flag_orphaned_after_credit: a confirmed (credited) block that another block replaced at its
 * height, after a reorg deeper than confirmDepth: `orphanedAfterCreditAtMs`, `observedHash` and
 * `orphanReason` on its record, and listed in `<p>:blocks:orphaned-after-credit`. Nothing is
 * debited and the status stays 'confirmed' (the credits were made; the operator settles them).
 * Once per block: a record not confirmed, or flagged already, is left alone. Returns {1}, or
 * {2, status}.
 */
export const FLAG_ORPHANED_AFTER_CREDIT_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'orphanedAfterCreditAtMs')
if record[1] ~= 'confirmed' or record[2] then return {2, record[1] or ''} end
redis.call('HSET', blockKey, 'orphanedAfterCreditAtMs', now, 'observedHash', observedHash,
  'orphanReason', reason)
redis.call('ZADD', flaggedKey, height, hash)
return {1}
`,
);

export function buildFlagOrphanedAfterCreditCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: FlagOrphanedAfterCreditRequest,
  nowMs: number,
): ScriptCall {
  const { hash, height, observedHash, reason, fencingToken = '' } = request;
  return LAYOUT.call({
    keys: {
      leaderKey: keys.payments.leaderToken,
      blockKey: keys.shares.block(hash),
      flaggedKey: keys.payments.blocksOrphanedAfterCredit,
    },
    args: { fencingToken, hash, height: String(height), observedHash, reason, now: String(nowMs) },
  });
}
