import type { StoredBlockStatus } from '../../../pool/blocks/stored-block.js';
import type { BlockCandidate } from '../../../pool/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { shareEntryValues } from '../share-entry.js';
import type { StoreKeys } from '../share-keys.js';
import { CLOSE_POOL_ROUND_LUA } from './close-pool-round-lua.js';

/**
 * record_block_candidate: the solving share, the block record and the round close in one atomic
 * call. Idempotent per block hash: if `<p>:block:<hash>` exists the script changes nothing and
 * returns what is stored, so a retried write can never close a second round.
 *
 * KEYS: 1 `<p>:shares`, 2 `<p>:round:current`, 3 `<p>:round:current:meta`,
 *       4 the block's list (`<p>:blocks:candidates`, or `<p>:blocks:rejected`),
 *       5 `<p>:block:<hash>`, 6 `<p>:round:<height>:<hash>`, 7 miner key, 8 worker key,
 *       9 `<p>:blocks:window-pending`.
 * ARGV: 1 stream max length, 2 "1" if the share is credited to the pool round (not solo),
 *       3 "1" if the block closes the pool round (not solo, not rejected): it also waits in
 *       window-pending for its PPLNS window to be fixed, 4 status,
 *       5..11 the share's seven values (SHARE_ENTRY_FIELDS order),
 *       12 height, 13 hash, 14 prevHash, 15 network difficulty (decimal), 16 submitResult,
 *       17 submitError ("" for none), 18 timestampMs (also the next round's startedAtMs),
 *       19 the submitted block (hex).
 * Returns {created 1|0, share entry id, status}.
 *
 * The round close is close_pool_round (close-pool-round-lua.ts).
 *
 * The stream is trimmed only while window-pending is empty (as in record_shares), so the entries
 * a pool block's window is read from stay until the leader has fixed it: each block is credited
 * whatever the share rate and `streamMaxLength`.
 */
export const RECORD_BLOCK_CANDIDATE_LUA = `${CLOSE_POOL_ROUND_LUA}
if redis.call('EXISTS', KEYS[5]) == 1 then
  local stored = redis.call('HMGET', KEYS[5], 'shareEntryId', 'status')
  return {0, stored[1] or '', stored[2] or ''}
end
local a, d, t = ARGV[5], ARGV[7], ARGV[9]
local id = redis.call('XADD', KEYS[1], '*', 'a', a, 'w', ARGV[6], 'd', d, 'h', ARGV[8], 't', t,
  's', ARGV[10], 'x', ARGV[11])
if ARGV[2] == '1' then
  redis.call('HINCRBY', KEYS[2], a, d)
  redis.call('HINCRBY', KEYS[3], 'totalDifficulty', d)
  redis.call('HINCRBY', KEYS[3], 'shareCount', 1)
  redis.call('HSETNX', KEYS[3], 'startedAtMs', t)
end
redis.call('HINCRBY', KEYS[7], 'sharesValid', 1)
redis.call('HINCRBY', KEYS[7], 'difficultyTotal', d)
redis.call('HSET', KEYS[7], 'lastShareMs', t)
redis.call('HINCRBY', KEYS[8], 'sharesValid', 1)
redis.call('HINCRBY', KEYS[8], 'difficultyTotal', d)
redis.call('HSET', KEYS[8], 'lastShareMs', t)
redis.call('HSET', KEYS[5], 'height', ARGV[12], 'hash', ARGV[13], 'prevHash', ARGV[14],
  'networkDifficulty', ARGV[15], 'finderAddress', a, 'finderWorker', ARGV[6], 'shareEntryId', id,
  'shareDifficulty', d, 'solo', ARGV[10], 'submitResult', ARGV[16], 'timestampMs', ARGV[18],
  'status', ARGV[4], 'blob', ARGV[19])
if ARGV[17] ~= '' then
  redis.call('HSET', KEYS[5], 'submitError', ARGV[17])
end
if ARGV[3] == '1' then
  close_pool_round(KEYS[5], KEYS[2], KEYS[3], KEYS[6], KEYS[9], ARGV[12], ARGV[13], t, ARGV[18])
end
redis.call('ZADD', KEYS[4], ARGV[12], ARGV[13])
if redis.call('ZCARD', KEYS[9]) == 0 then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[1])
end
return {1, id, ARGV[4]}
`;

/** Builds KEYS and ARGV of record_block_candidate for a validated candidate. */
export function buildRecordBlockCandidateCall(
  keys: StoreKeys,
  candidate: BlockCandidate,
  streamMaxLength: number,
): ScriptCall {
  const { share } = candidate;
  const rejected = candidate.submitResult === 'rejected';
  const status: StoredBlockStatus = rejected ? 'rejected' : 'pending';
  return {
    keys: [
      keys.shares,
      keys.roundCurrent,
      keys.roundCurrentMeta,
      rejected ? keys.blocksRejected : keys.blockCandidates,
      keys.block(candidate.hash),
      keys.closedRound(candidate.height, candidate.hash),
      keys.miner(share.address),
      keys.worker(share.address, share.worker),
      keys.blocksWindowPending,
    ],
    args: [
      String(streamMaxLength),
      share.solo ? '0' : '1',
      share.solo || rejected ? '0' : '1',
      status,
      ...shareEntryValues(share),
      String(candidate.height),
      candidate.hash,
      candidate.prevHash,
      candidate.networkDifficulty.toString(),
      candidate.submitResult,
      candidate.submitError ?? '',
      String(candidate.timestampMs),
      candidate.blobHex,
    ],
  };
}
