import type { OrphanBlockRequest } from '../../../model/blocks/unlock-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { ShareKeys } from '../../shares/share-keys.js';
import type { PaymentKeys } from '../payment-keys.js';
import { moneyScriptLayout, moneyScriptLua } from './money-script.js';

const LAYOUT = moneyScriptLayout({
  keys: [
    'blockKey',
    'candidatesKey',
    'orphanedKey',
    'totalsKey',
    'closedRoundKey',
    'roundCurrentKey',
    'roundMetaKey',
    'windowPendingKey',
  ],
  args: ['hash', 'height', 'mergeRound', 'reason', 'observedHash', 'now'],
});

/**
 * orphan_block: marks a pending block orphaned (nothing credited) and applies the scheme's rule to
 * the round it closed: with `mergeRound` "1" (PROP) the closed round is merged into the current
 * one. The block's fixed PPLNS window is kept (its shares stay in the stream for the next block as
 * well): a reorg deeper than confirmDepth may put the block back, and it is then credited by that
 * window (reinstate_orphaned_block).
 * `observedHash` is the hash seen at that height ("" for none). Idempotent by block hash like
 * credit_block. Returns {1, 'orphaned', merged address count}, or {0, 'CORRUPT_BALANCE', key}
 * before any write when a difficulty it adds, or adds to, is not an integer (never half-merged).
 */
export const ORPHAN_BLOCK_LUA = moneyScriptLua(
  LAYOUT,
  `
local status = redis.call('HGET', blockKey, 'status')
if status ~= 'pending' then return {2, status or '', 0} end
local flat = {}
if mergeRound == '1' then flat = redis.call('HGETALL', closedRoundKey) end
local bad = unwritable(totalsKey, 'hash', 'blocksOrphaned')
if #flat > 0 then
  bad = bad or unwritable(roundMetaKey, 'hash', 'totalDifficulty', 'shareCount')
    or unwritable(blockKey, 'hash', 'roundShareCount')
  for i = 1, #flat, 2 do
    if not is_integer(flat[i + 1]) then bad = bad or closedRoundKey end
    bad = bad or unwritable(roundCurrentKey, 'hash', flat[i])
  end
end
if bad then return {0, 'CORRUPT_BALANCE', bad} end
local merged = 0
if mergeRound == '1' then
  for i = 1, #flat, 2 do
    redis.call('HINCRBY', roundCurrentKey, flat[i], flat[i + 1])
    redis.call('HINCRBY', roundMetaKey, 'totalDifficulty', flat[i + 1])
    merged = merged + 1
  end
  local shareCount = redis.call('HGET', blockKey, 'roundShareCount')
  if merged > 0 and shareCount then redis.call('HINCRBY', roundMetaKey, 'shareCount', shareCount) end
end
redis.call('DEL', closedRoundKey)
redis.call('ZREM', windowPendingKey, hash)
redis.call('HSET', blockKey, 'status', 'orphaned', 'orphanReason', reason, 'orphanedAtMs', now,
  'observedHash', observedHash, 'roundMerged', tostring(merged))
redis.call('ZREM', candidatesKey, hash)
redis.call('ZADD', orphanedKey, height, hash)
redis.call('HINCRBY', totalsKey, 'blocksOrphaned', 1)
return {1, 'orphaned', merged}
`,
);

/** The keys a block moves between the candidates and the orphaned list by: orphan_block, reinstate_orphaned_block. */
export function orphanListKeys(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  hash: string,
) {
  const { payments, shares } = keys;
  return {
    leaderKey: payments.leaderToken,
    blockKey: shares.block(hash),
    candidatesKey: shares.blockCandidates,
    orphanedKey: payments.blocksOrphaned,
    totalsKey: payments.totals,
  };
}

export function buildOrphanBlockCall(
  keys: { readonly payments: PaymentKeys; readonly shares: ShareKeys },
  request: OrphanBlockRequest,
  nowMs: number,
): ScriptCall {
  const { shares } = keys;
  return LAYOUT.call({
    keys: {
      ...orphanListKeys(keys, request.hash),
      closedRoundKey: shares.closedRound(request.height, request.hash),
      roundCurrentKey: shares.roundCurrent,
      roundMetaKey: shares.roundCurrentMeta,
      windowPendingKey: shares.blocksWindowPending,
    },
    args: {
      fencingToken: request.fencingToken ?? '',
      hash: request.hash,
      height: String(request.height),
      mergeRound: request.mergeRound ? '1' : '0',
      reason: request.reason,
      observedHash: request.observedHash,
      now: String(nowMs),
    },
  });
}
