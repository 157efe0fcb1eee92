import type { StoredBlockStatus } from '../../../model/blocks/stored-block.js';
import type { BlockCandidate } from '../../../model/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { REDIS_NOW_MS_LUA } from '../../scripts/redis-clock-lua.js';
import { scriptLayout } from '../../scripts/script-layout.js';
import { SHARE_ENTRY_ARGS, shareEntryArgs } from '../share-entry.js';
import type { ShareKeys } from '../share-keys.js';
import { CLOSE_POOL_ROUND_LUA } from './close-pool-round-lua.js';

const LAYOUT = scriptLayout({
  keys: [
    'sharesKey',
    'roundCurrentKey',
    'roundMetaKey',
    'blockListKey',
    'blockKey',
    'closedRoundKey',
    'minerKey',
    'workerKey',
    'windowPendingKey',
    'announceKey',
  ],
  args: [
    'streamMaxLength',
    'announces',
    'creditsRound',
    'closesRound',
    'status',
    ...SHARE_ENTRY_ARGS,
    'height',
    'hash',
    'prevHash',
    'networkDifficulty',
    'submitResult',
    'submitError',
    'timestampMs',
    'blob',
  ],
});

/**
 * record_block_candidate: the solving share, the block record and the round close in one atomic
 * call. Idempotent per block hash: if `<p>:block:<hash>` exists the script changes nothing and
 * returns what is stored, so a retried write can never close a second round.
 *
 * `blockListKey` is `<p>:blocks:candidates`, or `<p>:blocks:rejected` for a rejected block;
 * `creditsRound` "1" if the share is credited to the pool round (not solo); `closesRound` "1" if
 * the block closes the pool round (not solo, not rejected): it also waits in window-pending for
 * its PPLNS window to be fixed. `timestampMs` is also the next round's startedAtMs. `announces`
 * "1" (not rejected): the block waits in announce-pending, scored by Redis's clock (the leader
 * ages it by the same clock), until its `block-found` is published.
 * Returns {created 1|0, share entry id, status}.
 *
 * The round close is close_pool_round (close-pool-round-lua.ts).
 *
 * The stream is trimmed only while window-pending is empty (as in record_shares), so the entries
 * a pool block's window is read from stay until the leader has fixed it: each block is credited
 * whatever the share rate and `streamMaxLength`.
 */
export const RECORD_BLOCK_CANDIDATE_LUA = `${LAYOUT.lua}${CLOSE_POOL_ROUND_LUA}${REDIS_NOW_MS_LUA}
if redis.call('EXISTS', blockKey) == 1 then
  local stored = redis.call('HMGET', blockKey, 'shareEntryId', 'status')
  return {0, stored[1] or '', stored[2] or ''}
end
local id = redis.call('XADD', sharesKey, '*', 'a', shareAddress, 'w', shareWorker, 'd', shareDifficulty,
  'h', shareHeight, 't', shareTimestampMs, 's', shareSolo, 'x', shareStale)
if creditsRound == '1' then
  redis.call('HINCRBY', roundCurrentKey, shareAddress, shareDifficulty)
  redis.call('HINCRBY', roundMetaKey, 'totalDifficulty', shareDifficulty)
  redis.call('HINCRBY', roundMetaKey, 'shareCount', 1)
  redis.call('HSETNX', roundMetaKey, 'startedAtMs', shareTimestampMs)
end
redis.call('HINCRBY', minerKey, 'sharesValid', 1)
redis.call('HINCRBY', minerKey, 'difficultyTotal', shareDifficulty)
redis.call('HSET', minerKey, 'lastShareMs', shareTimestampMs)
redis.call('HINCRBY', workerKey, 'sharesValid', 1)
redis.call('HINCRBY', workerKey, 'difficultyTotal', shareDifficulty)
redis.call('HSET', workerKey, 'lastShareMs', shareTimestampMs)
redis.call('HSET', blockKey, 'height', height, 'hash', hash, 'prevHash', prevHash,
  'networkDifficulty', networkDifficulty, 'finderAddress', shareAddress, 'finderWorker', shareWorker,
  'shareEntryId', id, 'shareDifficulty', shareDifficulty, 'solo', shareSolo, 'submitResult', submitResult,
  'timestampMs', timestampMs, 'status', status, 'blob', blob)
if submitError ~= '' then
  redis.call('HSET', blockKey, 'submitError', submitError)
end
if closesRound == '1' then
  close_pool_round(blockKey, roundCurrentKey, roundMetaKey, closedRoundKey, windowPendingKey, height, hash,
    shareTimestampMs, timestampMs)
end
redis.call('ZADD', blockListKey, height, hash)
if announces == '1' then
  redis.call('ZADD', announceKey, redis_now_ms(), hash)
end
if redis.call('ZCARD', windowPendingKey) == 0 then
  redis.call('XTRIM', sharesKey, 'MAXLEN', '~', streamMaxLength)
end
return {1, id, status}
`;

/** Builds KEYS and ARGV of record_block_candidate for a validated candidate. */
export function buildRecordBlockCandidateCall(
  keys: ShareKeys,
  candidate: BlockCandidate,
  streamMaxLength: number,
): ScriptCall {
  const { share } = candidate;
  const rejected = candidate.submitResult === 'rejected';
  const status: StoredBlockStatus = rejected ? 'rejected' : 'pending';
  return LAYOUT.call({
    keys: {
      sharesKey: keys.shares,
      roundCurrentKey: keys.roundCurrent,
      roundMetaKey: keys.roundCurrentMeta,
      blockListKey: rejected ? keys.blocksRejected : keys.blockCandidates,
      blockKey: keys.block(candidate.hash),
      closedRoundKey: keys.closedRound(candidate.height, candidate.hash),
      minerKey: keys.miner(share.address),
      workerKey: keys.worker(share.address, share.worker),
      windowPendingKey: keys.blocksWindowPending,
      announceKey: keys.blocksAnnouncePending,
    },
    args: {
      streamMaxLength: String(streamMaxLength),
      announces: rejected ? '0' : '1',
      creditsRound: share.solo ? '0' : '1',
      closesRound: share.solo || rejected ? '0' : '1',
      status,
      ...shareEntryArgs(share),
      height: String(candidate.height),
      hash: candidate.hash,
      prevHash: candidate.prevHash,
      networkDifficulty: candidate.networkDifficulty.toString(),
      submitResult: candidate.submitResult,
      submitError: candidate.submitError ?? '',
      timestampMs: String(candidate.timestampMs),
      blob: candidate.blobHex,
    },
  });
}
