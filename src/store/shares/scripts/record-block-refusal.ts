import type { BlockRefusalReason } from '../../../pool/block-refusal.js';
import type { BlockCandidate } from '../../../pool/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import type { StoreKeys } from '../share-keys.js';
import { CLOSE_POOL_ROUND_LUA } from './close-pool-round-lua.js';

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
 * window-pending for its PPLNS window. submitResult stays 'rejected' (what the daemon said).
 * - PROP: the round closed here has run on since the find (the diagnosis comes moments after it),
 *   so it holds those moments' shares too; they are paid by this block instead of the next one,
 *   which is fair enough for a block the pool would otherwise never pay.
 * - PPLNS: the window is read back from the block's own share entry, so it is the find's. The
 *   entry is still in the stream unless `streamMaxLength` shares came in between find and
 *   promotion (the stream is trimmed only while window-pending is empty); then the window pays the
 *   shares that are left (the fixer's `trimmed`).
 *
 * KEYS: 1 `<p>:block:<hash>`, 2 `<p>:blocks:rejected`, 3 `<p>:blocks:candidates`,
 *       4 `<p>:round:current`, 5 `<p>:round:current:meta`, 6 `<p>:round:<height>:<hash>`,
 *       7 `<p>:blocks:window-pending`.
 * ARGV: 1 the reason, 2 hash, 3 height (must be the record's: it names KEYS[6]), 4 now ms (the
 *       next round's startedAtMs).
 * Returns 0 when left alone, 1 when the reason was written, 2 when the block was promoted too.
 */
export const RECORD_BLOCK_REFUSAL_LUA = `${CLOSE_POOL_ROUND_LUA}
local record = redis.call('HMGET', KEYS[1], 'submitResult', 'status', 'height', 'solo')
if record[1] ~= 'rejected' or record[2] ~= 'rejected' then
  return 0
end
if record[3] ~= ARGV[3] then
  return redis.error_reply('ERR record_block_refusal: the record is at height ' .. tostring(record[3]))
end
redis.call('HSET', KEYS[1], 'refusalReason', ARGV[1])
if ARGV[1] ~= 'already-on-chain' then
  return 1
end
if record[4] == '0' then
  close_pool_round(KEYS[1], KEYS[4], KEYS[5], KEYS[6], KEYS[7], ARGV[3], ARGV[2], ARGV[4], ARGV[4])
end
redis.call('HSET', KEYS[1], 'status', 'pending')
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
return 2
`;

export function buildRecordBlockRefusalCall(
  keys: StoreKeys,
  block: Pick<BlockCandidate, 'hash' | 'height'>,
  reason: BlockRefusalReason,
  nowMs: number,
): ScriptCall {
  return {
    keys: [
      keys.block(block.hash),
      keys.blocksRejected,
      keys.blockCandidates,
      keys.roundCurrent,
      keys.roundCurrentMeta,
      keys.closedRound(block.height, block.hash),
      keys.blocksWindowPending,
    ],
    args: [reason, block.hash, String(block.height), String(nowMs)],
  };
}
