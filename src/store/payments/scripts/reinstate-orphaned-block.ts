import type { ReinstateOrphanedBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';
import { orphanListKeys } from './orphan-block.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey', 'candidatesKey', 'orphanedKey', 'totalsKey', 'windowKey'],
  args: ['hash', 'height', 'poolBlocksByWindow', 'note', 'now'],
});

/**
 * reinstate_orphaned_block: a block decided orphaned whose own hash a reorg deeper than
 * confirmDepth put back at its height. When its split can still be made as at the find (a solo
 * block; a pool block with `poolBlocksByWindow` "1", PPLNS, and its fixed window kept) it is
 * pending again: back in the candidates, out of the orphaned list and count, `reinstatedAtMs` and
 * the unlock note set, so the unlocker credits it at depth like any candidate. Otherwise (PROP: its
 * round was merged into the next one, which paid its shares; a window not kept) it stays orphaned,
 * noted once with `backOnChainAtMs`. Returns {1, 'reinstated' | 'noted'}, or {2, ''} when there was
 * nothing to do (not orphaned, or noted before).
 */
export const REINSTATE_ORPHANED_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'solo', 'backOnChainAtMs')
if record[1] ~= 'orphaned' then return {2, ''} end
local bad = unwritable(totalsKey, 'hash', 'blocksOrphaned')
if bad then return {0, 'CORRUPT_BALANCE', bad} end
local creditable = record[2] == '1'
  or (poolBlocksByWindow == '1' and redis.call('EXISTS', windowKey) == 1)
if not creditable then
  if record[3] then return {2, ''} end
  redis.call('HSET', blockKey, 'backOnChainAtMs', now)
  return {1, 'noted'}
end
redis.call('HSET', blockKey, 'status', 'pending', 'reinstatedAtMs', now, 'unlockNote', note)
redis.call('HDEL', blockKey, 'backOnChainAtMs')
redis.call('ZREM', orphanedKey, hash)
redis.call('ZADD', candidatesKey, height, hash)
redis.call('HINCRBY', totalsKey, 'blocksOrphaned', -1)
return {1, 'reinstated'}
`,
);

export function buildReinstateOrphanedBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: ReinstateOrphanedBlockRequest,
  nowMs: number,
): ScriptCall {
  return LAYOUT.call({
    keys: { ...orphanListKeys(keys, request.hash), windowKey: keys.shares.blockWindow(request.hash) },
    args: {
      fencingToken: request.fencingToken ?? '',
      hash: request.hash,
      height: String(request.height),
      poolBlocksByWindow: request.poolBlocksByWindow ? '1' : '0',
      note: request.note,
      now: String(nowMs),
    },
  });
}
