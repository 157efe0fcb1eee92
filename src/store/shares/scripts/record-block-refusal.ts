import type { BlockRefusalReason } from '../../../model/block-refusal-reason.js';
import type { BlockCandidate } from '../../../model/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { REDIS_NOW_MS_LUA } from '../../scripts/redis-clock-lua.js';
import { type ScriptValues, scriptLayout } from '../../scripts/script-layout.js';
import type { ShareKeys } from '../share-keys.js';
import { CLOSE_POOL_ROUND_LUA } from './close-pool-round-lua.js';

/** The names record_block_refusal's body reads (the leader's fenced promote_refused_block takes them too). */
export const RECORD_BLOCK_REFUSAL_KEYS = [
  'blockKey',
  'rejectedKey',
  'candidatesKey',
  'roundCurrentKey',
  'roundMetaKey',
  'closedRoundKey',
  'windowPendingKey',
  'announceKey',
] as const;
export const RECORD_BLOCK_REFUSAL_ARGS = ['reason', 'hash', 'height', 'now'] as const;

const LAYOUT = scriptLayout({ keys: RECORD_BLOCK_REFUSAL_KEYS, args: RECORD_BLOCK_REFUSAL_ARGS });

/**
 * record_block_refusal: why submitblock refused a recorded candidate, as `refusalReason` of its
 * block record, and for a block found on the chain after all (`already-on-chain`) its promotion to
 * what record_block_candidate writes for an accepted block, in the same call.
 *
 * Only a record whose submitResult and status are both 'rejected' takes it: the same hash recorded
 * earlier as accepted (a duplicate submit keeps the first record), a block promoted already (so a
 * second promote does nothing) and a missing record are left alone.
 *
 * The promotion: status 'pending', moved from `<p>:blocks:rejected` to `<p>:blocks:candidates`
 * (the unlocker decides it by the chain); for a pool block (not solo) the open round is closed
 * into `<p>:round:<height>:<hash>` with the round summary fields, and the block waits in
 * window-pending for its PPLNS window; it waits in announce-pending (scored by Redis's clock) until
 * its `block-found` is published. submitResult stays 'rejected' (what the daemon said).
 * - PROP: the round closed here has run on since the find (the diagnosis comes moments after it;
 *   the leader's promotion up to an unlock run later, or once the daemon answers again), so it
 *   holds those shares too; they are paid by this block instead of the next one, which is fair
 *   enough for a block the pool would otherwise never pay.
 * - PPLNS: the window is read back from the block's own share entry, so it is the find's. The
 *   entry is still in the stream unless `streamMaxLength` shares came in between find and
 *   promotion (the stream is trimmed only while window-pending is empty); then the window pays the
 *   shares that are left (the fixer's `trimmed`).
 *
 * `height` must be the record's (it names `closedRoundKey`); `now` is the next round's
 * startedAtMs.
 * Returns 0 when left alone, 1 when the reason was written, 2 when the block was promoted too.
 *
 * RECORD_BLOCK_REFUSAL_BODY is the script after its layout: the leader's promote_refused_block
 * runs the same body behind the money scripts' fencing check, so there is one promotion.
 */
export const RECORD_BLOCK_REFUSAL_BODY = `${CLOSE_POOL_ROUND_LUA}${REDIS_NOW_MS_LUA}
local record = redis.call('HMGET', blockKey, 'submitResult', 'status', 'height', 'solo')
if record[1] ~= 'rejected' or record[2] ~= 'rejected' then
  return 0
end
if record[3] ~= height then
  return redis.error_reply('ERR record_block_refusal: the record is at height ' .. tostring(record[3]))
end
redis.call('HSET', blockKey, 'refusalReason', reason)
if reason ~= 'already-on-chain' then
  return 1
end
if record[4] == '0' then
  close_pool_round(blockKey, roundCurrentKey, roundMetaKey, closedRoundKey, windowPendingKey, height, hash,
    now, now)
end
redis.call('HSET', blockKey, 'status', 'pending')
redis.call('ZREM', rejectedKey, hash)
redis.call('ZADD', candidatesKey, height, hash)
redis.call('ZADD', announceKey, redis_now_ms(), hash)
return 2
`;

export const RECORD_BLOCK_REFUSAL_LUA = `${LAYOUT.lua}${RECORD_BLOCK_REFUSAL_BODY}`;

/** The values of record_block_refusal's names for one refused block. */
export function recordBlockRefusalValues(
  keys: ShareKeys,
  block: Pick<BlockCandidate, 'hash' | 'height'>,
  reason: BlockRefusalReason,
  nowMs: number,
): ScriptValues<typeof RECORD_BLOCK_REFUSAL_KEYS, typeof RECORD_BLOCK_REFUSAL_ARGS, [], []> {
  return {
    keys: {
      blockKey: keys.block(block.hash),
      rejectedKey: keys.blocksRejected,
      candidatesKey: keys.blockCandidates,
      roundCurrentKey: keys.roundCurrent,
      roundMetaKey: keys.roundCurrentMeta,
      closedRoundKey: keys.closedRound(block.height, block.hash),
      windowPendingKey: keys.blocksWindowPending,
      announceKey: keys.blocksAnnouncePending,
    },
    args: { reason, hash: block.hash, height: String(block.height), now: String(nowMs) },
  };
}

export function buildRecordBlockRefusalCall(
  keys: ShareKeys,
  block: Pick<BlockCandidate, 'hash' | 'height'>,
  reason: BlockRefusalReason,
  nowMs: number,
): ScriptCall {
  return LAYOUT.call(recordBlockRefusalValues(keys, block, reason, nowMs));
}
