import type { ReinstateOrphanedBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';
import { orphanListKeys } from './orphan-block.js';

const LAYOUT = moneyScriptLayout({
  keys: ['blockKey', 'candidatesKey', 'orphanedKey', 'totalsKey', 'windowKey', 'backOnChainKey'],
  args: ['hash', 'height', 'poolBlocksByWindow', 'note', 'reward', 'now'],
});

/**
 * reinstate_orphaned_block: a block decided orphaned whose own hash a reorg deeper than
 * confirmDepth put back at its height. When its split can still be made as at the find (a solo
 * block; a pool block with `poolBlocksByWindow` "1", PPLNS, and its fixed window kept) it is
 * pending again: back in the candidates, out of the orphaned list and count, `reinstatedAtMs` and
 * the unlock note set, so the unlocker credits it at depth like any candidate (and out of the
 * back-on-chain list, were it noted there before). Otherwise it stays orphaned and is noted once,
 * in the same write:
 * - `backOnChainReason`, the mark of a note: round-merged (PROP merged its round into the next
 *   one, which paid its shares, or it was orphaned while PROP ran) or no-window (no PPLNS window
 *   was kept: an older version orphaned it);
 * - `backOnChainReward`: the header's reward, in the wallet, owed to nobody by the ledger;
 * - `backOnChainAtMs`: now, or kept when an older version (which noted only that) set it;
 * - the back-on-chain list, which `fuego-pool report` reads.
 * So the leader tells it once, across restarts and failovers. Returns {1, 'reinstated'} or
 * {1, 'noted', reason}, or {2, ''} when there was nothing to do (not orphaned, or noted before).
 */
export const REINSTATE_ORPHANED_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local record = redis.call('HMGET', blockKey, 'status', 'solo', 'backOnChainAtMs', 'roundMerged',
  'backOnChainReason')
if record[1] ~= 'orphaned' then return {2, ''} end
local bad = unwritable(totalsKey, 'hash', 'blocksOrphaned')
if bad then return {0, 'CORRUPT_BALANCE', bad} end
local creditable = record[2] == '1'
  or (poolBlocksByWindow == '1' and redis.call('EXISTS', windowKey) == 1)
if not creditable then
  if record[5] then return {2, ''} end
  local reason = 'no-window'
  if poolBlocksByWindow ~= '1' or (tonumber(record[4] or '0') or 0) > 0 then reason = 'round-merged' end
  redis.call('HSET', blockKey, 'backOnChainAtMs', record[3] or now, 'backOnChainReason', reason,
    'backOnChainReward', reward)
  redis.call('ZADD', backOnChainKey, height, hash)
  return {1, 'noted', reason}
end
redis.call('HSET', blockKey, 'status', 'pending', 'reinstatedAtMs', now, 'unlockNote', note)
redis.call('HDEL', blockKey, 'backOnChainAtMs', 'backOnChainReason', 'backOnChainReward')
redis.call('ZREM', backOnChainKey, hash)
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
    keys: {
      ...orphanListKeys(keys, request.hash),
      windowKey: keys.shares.blockWindow(request.hash),
      backOnChainKey: keys.payments.blocksOrphanedBackOnChain,
    },
    args: {
      fencingToken: request.fencingToken ?? '',
      hash: request.hash,
      height: String(request.height),
      poolBlocksByWindow: request.poolBlocksByWindow ? '1' : '0',
      note: request.note,
      reward: request.rewardAtomic.toString(),
      now: String(nowMs),
    },
  });
}
