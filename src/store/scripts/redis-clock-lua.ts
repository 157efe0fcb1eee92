/**
 * redis_now_ms(): Redis's own clock, in epoch milliseconds as a decimal string. For a time one
 * process writes and a process on another host later ages (block-found's unannounced marks): one
 * clock for both, so a host whose clock is off neither ages a mark too soon nor too late. Scripts
 * replicate by their effects (always on Redis 7), so one may read TIME and go on writing.
 */
export const REDIS_NOW_MS_LUA = `
local function redis_now_ms()
  local time = redis.call('TIME')
  return string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
end
`;
