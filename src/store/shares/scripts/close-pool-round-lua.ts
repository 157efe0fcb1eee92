/**
 * Lua shared by record_block_candidate and record_block_refusal (prepended to both): what a pool
 * block (not solo) does to the round when it is recorded as found.
 *
 * close_pool_round(block, current, meta, closed, windowPending, height, hash, startedFallbackMs,
 * nextStartedAtMs): the open round's summary goes to the block record (roundStartedAtMs,
 * roundTotalDifficulty, roundShareCount), its contributions become the block's closed round
 * `<p>:round:<height>:<hash>` (PROP's weights), a new round starts at nextStartedAtMs, and the
 * block waits in window-pending until the leader fixes its PPLNS window. RENAME is guarded: it is
 * an error in Redis on a missing key (never the case when the solving share was just credited).
 */
export const CLOSE_POOL_ROUND_LUA = `
local function close_pool_round(block, current, meta, closed, windowPending, height, hash,
    startedFallbackMs, nextStartedAtMs)
  local summary = redis.call('HMGET', meta, 'startedAtMs', 'totalDifficulty', 'shareCount')
  redis.call('HSET', block, 'roundStartedAtMs', summary[1] or startedFallbackMs,
    'roundTotalDifficulty', summary[2] or '0', 'roundShareCount', summary[3] or '0')
  if redis.call('EXISTS', current) == 1 then
    redis.call('RENAME', current, closed)
  end
  redis.call('DEL', meta)
  redis.call('HSET', meta, 'startedAtMs', nextStartedAtMs, 'totalDifficulty', '0', 'shareCount', '0')
  redis.call('ZADD', windowPending, height, hash)
end
`;
