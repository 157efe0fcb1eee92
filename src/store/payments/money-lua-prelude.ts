/**
 * Lua shared by the money scripts, placed after each one's layout locals (scripts/money-script.ts).
 *
 * Conventions of every money script:
 * - `leaderKey` is `<p>:leader:token`, `fencingToken` the caller's fencing token ("" = the caller
 *   takes no part in leader election, e.g. a single-process pool or the payout CLI under the payout
 *   lock). With a token the script refuses unless the key holds exactly that token (an expired key
 *   refuses too: a leader that lost its key lost its leadership).
 * - Every check runs before the first write and a refusal is a normal reply `{0, CODE, detail}`:
 *   a Lua error after some writes would leave them applied (scripts are atomic, not transactional).
 * - Amounts travel as decimal strings and are only handed to HINCRBY (exact signed 64-bit); Lua
 *   numbers are doubles, so the scripts never do arithmetic on money themselves. One exception,
 *   exact by construction: keep_payable_sum adds the payable index's scores (doubles already)
 *   while every figure is an integer below 2^53, and drops the sum rather than round it.
 */
export const MONEY_LUA_PRELUDE = `
local function fenced()
  return fencingToken ~= '' and redis.call('GET', leaderKey) ~= fencingToken
end
-- a >= b for decimal integer strings without leading zeros; a may be negative (a balance a
-- late-found payment debited again), b is not
local function ge(a, b)
  if string.sub(a, 1, 1) == '-' then return false end
  if #a ~= #b then return #a > #b end
  return a >= b
end
local function field(key, name)
  return redis.call('HGET', key, name) or '0'
end
local function negate(amount)
  if amount == '0' then return '0' end
  if string.sub(amount, 1, 1) == '-' then return string.sub(amount, 2) end
  return '-' .. amount
end
-- a decimal integer HINCRBY takes (signed 64-bit, to within the last digit)
local function is_integer(value)
  return string.match(value, '^%-?%d+$') ~= nil and #value <= 19
end
-- 2^53: below it a double (a ZSET score, a Lua number) holds every integer exactly
local EXACT_BELOW = 9007199254740992
-- a score of the payable index moved from \`before\` to \`after\` (0: not listed): the totals'
-- payableVersion changes (a reader summing the index in pages tells by it that nothing moved
-- meanwhile), and positiveBalance (the sum of the index's scores, once a reader stored it) moves
-- by as much; a sum that would not be exact or that is not an amount is dropped, never kept
-- wrong: the next reader sums the index again
local function keep_payable_sum(totals, before, after)
  if before == after then return end
  local version = redis.call('HGET', totals, 'payableVersion')
  if version and string.match(version, '^%d+$') and #version < 16 then
    redis.call('HINCRBY', totals, 'payableVersion', 1)
  else
    redis.call('HSET', totals, 'payableVersion', 1)
  end
  local kept = redis.call('HGET', totals, 'positiveBalance')
  if not kept then return end
  local sum = string.match(kept, '^%d+$') and tonumber(kept)
  if sum and sum < EXACT_BELOW and before < EXACT_BELOW and after < EXACT_BELOW
    and before == math.floor(before) then
    -- each step exact: both terms and the result are integers below 2^53 in magnitude
    sum = sum - before + after
    if sum >= 0 and sum < EXACT_BELOW then
      redis.call('HSET', totals, 'positiveBalance', string.format('%.0f', sum))
      return
    end
  end
  redis.call('HDEL', totals, 'positiveBalance')
end
-- keeps <p>:balances:payable in step with one balance hash (every change of a balance ends with
-- it), and the totals' sum of the index with it; returns the balance
local function index_payable(payable, totals, balanceKey, address)
  local balance = field(balanceKey, 'balance')
  local before = tonumber(redis.call('ZSCORE', payable, address) or '0')
  local after = 0
  if balance ~= '0' and string.sub(balance, 1, 1) ~= '-' then
    redis.call('ZADD', payable, balance, address)
    after = tonumber(balance)
  else
    redis.call('ZREM', payable, address)
  end
  keep_payable_sum(totals, before, after)
  return balance
end
-- the key if it cannot take a script's writes (another type, or a named field HINCRBY would
-- refuse), else nil; checked before the first write, because a write failing later would leave
-- the ones before it applied
local function unwritable(key, kind, ...)
  local found = redis.call('TYPE', key)['ok']
  if found == 'none' then return nil end
  if found ~= kind then return key end
  for _, name in ipairs({...}) do
    local value = redis.call('HGET', key, name)
    if value and not is_integer(value) then return key end
  end
  return nil
end
-- unwritable() of one account item's balance and history keys
local function unwritable_account(itemKeys)
  return unwritable(itemKeys.balanceKey, 'hash', 'credited', 'balance')
    or unwritable(itemKeys.historyKey, 'stream')
end
-- the items of a script that moves the amounts a record holds (address -> amount) back or forth:
-- {'BLOCK_STATE', changed} when they are not exactly the record's (count, addresses, amounts),
-- else the first unwritable account key, else nil; item_args and item_keys are the script's
local function items_match_record(recordKey, count, args_of, keys_of, changed)
  if redis.call('HLEN', recordKey) ~= count then return {'BLOCK_STATE', changed} end
  local bad = nil
  for i = 1, count do
    local item = args_of(i)
    if redis.call('HGET', recordKey, item.address) ~= item.amount then return {'BLOCK_STATE', changed} end
    bad = bad or unwritable_account(keys_of(i))
  end
  if bad then return {'CORRUPT_BALANCE', bad} end
  return nil
end
local function history(key, maxLength, reason, amount, ref, balance, now)
  redis.call('XADD', key, 'MAXLEN', '~', maxLength, '*', 'r', reason, 'a', amount, 'ref', ref,
    'b', balance, 't', now)
end
-- adds a signed amount to an account's credited and balance and to the totals' (a credit, or one
-- taken back); the caller keeps the payable index and writes the history entry
local function add_credit(balanceKey, totalsKey, amount)
  redis.call('HINCRBY', balanceKey, 'credited', amount)
  redis.call('HINCRBY', balanceKey, 'balance', amount)
  redis.call('HINCRBY', totalsKey, 'credited', amount)
  redis.call('HINCRBY', totalsKey, 'balance', amount)
end
-- add_credit counted in the totals' adjustments (a manual adjustment, an orphan clawback or its
-- credit back: rewards + adjustments = credited + poolFees holds), then the payable index and a
-- history entry; returns the balance after
local function adjust_account(account, amount, reason, ref, now)
  add_credit(account.balanceKey, account.totalsKey, amount)
  redis.call('HINCRBY', account.totalsKey, 'adjustments', amount)
  local balance = index_payable(account.payableKey, account.totalsKey, account.balanceKey, account.address)
  history(account.historyKey, account.historyMax, reason, amount, ref, balance, now)
  return balance
end
if fenced() then return {0, 'FENCED', ''} end
`;
