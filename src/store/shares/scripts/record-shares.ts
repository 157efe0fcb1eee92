import type { AcceptedShare } from '../../../model/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { scriptLayout } from '../../scripts/script-layout.js';
import { pushShareEntryValues } from '../share-entry.js';
import type { ShareKeys } from '../share-keys.js';

/**
 * record_shares: a batch of shares in one atomic call. The named keys and values below come
 * first (RECORD_SHARES_LAYOUT); then, in ARGV, each share's seven values (SHARE_ENTRY_FIELDS
 * order), each miner's five (address, round difficulty, shares, difficulty total, last share ms)
 * and each worker's three (shares, difficulty total, last share ms); in KEYS a key per miner,
 * then one per worker. The script walks those groups with two cursors (`nextArg`, `nextKey`)
 * and binds each group's values to names, so no position is computed in the body.
 *
 * `streamMaxLength`: approximate trim, skipped while a found block's window is not fixed (its
 * entry must stay readable). `firstShareMs`: the batch's first pool share ("" when none), the
 * round's startedAtMs if the round has none yet. Returns the stream entry ids in batch order.
 *
 * Sums are computed in TypeScript with bigint and handed over as decimal strings: Lua numbers are
 * doubles, so the script never does arithmetic on a difficulty, it only passes strings to
 * HINCRBY (exact 64-bit). Aggregating per miner/worker also keeps the script short under load
 * (a few commands per distinct miner instead of nine per share).
 */
const RECORD_SHARES_LAYOUT = scriptLayout({
  keys: ['sharesKey', 'roundKey', 'roundMetaKey', 'windowPendingKey'],
  args: [
    'streamMaxLength',
    'shareCount',
    'minerCount',
    'workerCount',
    'batchDifficulty',
    'batchShares',
    'firstShareMs',
  ],
});

export const RECORD_SHARES_LUA = `${RECORD_SHARES_LAYOUT.lua}
local nextArg = ${RECORD_SHARES_LAYOUT.argCount + 1}
local nextKey = ${RECORD_SHARES_LAYOUT.keyCount + 1}
local ids = {}
for s = 1, tonumber(shareCount) do
  local a, w, d, h, t, solo, x = unpack(ARGV, nextArg, nextArg + 6)
  nextArg = nextArg + 7
  ids[s] = redis.call('XADD', sharesKey, '*', 'a', a, 'w', w, 'd', d, 'h', h, 't', t, 's', solo, 'x', x)
end
if batchShares ~= '0' then
  redis.call('HINCRBY', roundMetaKey, 'totalDifficulty', batchDifficulty)
  redis.call('HINCRBY', roundMetaKey, 'shareCount', batchShares)
  redis.call('HSETNX', roundMetaKey, 'startedAtMs', firstShareMs)
end
for m = 1, tonumber(minerCount) do
  local minerKey = KEYS[nextKey]
  local address, roundDifficulty, shares, difficulty, lastShareMs = unpack(ARGV, nextArg, nextArg + 4)
  nextKey, nextArg = nextKey + 1, nextArg + 5
  if roundDifficulty ~= '0' then
    redis.call('HINCRBY', roundKey, address, roundDifficulty)
  end
  redis.call('HINCRBY', minerKey, 'sharesValid', shares)
  redis.call('HINCRBY', minerKey, 'difficultyTotal', difficulty)
  redis.call('HSET', minerKey, 'lastShareMs', lastShareMs)
end
for w = 1, tonumber(workerCount) do
  local workerKey = KEYS[nextKey]
  local shares, difficulty, lastShareMs = unpack(ARGV, nextArg, nextArg + 2)
  nextKey, nextArg = nextKey + 1, nextArg + 3
  redis.call('HINCRBY', workerKey, 'sharesValid', shares)
  redis.call('HINCRBY', workerKey, 'difficultyTotal', difficulty)
  redis.call('HSET', workerKey, 'lastShareMs', lastShareMs)
end
if redis.call('ZCARD', windowPendingKey) == 0 then
  redis.call('XTRIM', sharesKey, 'MAXLEN', '~', streamMaxLength)
end
return ids
`;

interface Tally {
  roundDifficulty: bigint;
  shares: number;
  difficulty: bigint;
  lastShareMs: number;
}

function tally(
  map: Map<string, Tally>,
  key: string,
  share: AcceptedShare,
  difficulty: bigint,
  creditsRound: boolean,
): void {
  let entry = map.get(key);
  if (entry === undefined) {
    entry = { roundDifficulty: 0n, shares: 0, difficulty: 0n, lastShareMs: 0 };
    map.set(key, entry);
  }
  if (creditsRound) entry.roundDifficulty += difficulty;
  entry.shares += 1;
  entry.difficulty += difficulty;
  entry.lastShareMs = Math.max(entry.lastShareMs, share.timestampMs);
}

/** Builds KEYS and ARGV of record_shares for a non-empty batch of validated shares. */
export function buildRecordSharesCall(
  keys: ShareKeys,
  shares: readonly AcceptedShare[],
  streamMaxLength: number,
): ScriptCall {
  const miners = new Map<string, Tally>();
  // Workers by miner, so a worker's key is built once per batch, not once per share.
  const workersByMiner = new Map<string, Map<string, Tally>>();
  let roundDifficulty = 0n;
  let roundShares = 0;
  let firstRoundShareMs = '';
  const entryArgs: string[] = [];
  for (const share of shares) {
    pushShareEntryValues(entryArgs, share);
    const difficulty = BigInt(share.difficulty);
    // Solo shares are paid by SOLO and never enter the pool round; stale-in-grace shares do.
    const creditsRound = !share.solo;
    if (creditsRound) {
      roundDifficulty += difficulty;
      roundShares += 1;
      if (firstRoundShareMs === '') firstRoundShareMs = String(share.timestampMs);
    }
    tally(miners, share.address, share, difficulty, creditsRound);
    let workers = workersByMiner.get(share.address);
    if (workers === undefined) {
      workers = new Map();
      workersByMiner.set(share.address, workers);
    }
    tally(workers, share.worker, share, difficulty, creditsRound);
  }
  const minerKeys: string[] = [];
  const minerArgs: string[] = [];
  for (const [address, t] of miners) {
    minerKeys.push(keys.miner(address));
    minerArgs.push(
      address,
      String(t.roundDifficulty),
      String(t.shares),
      String(t.difficulty),
      String(t.lastShareMs),
    );
  }
  const workerKeys: string[] = [];
  const workerArgs: string[] = [];
  for (const [address, workers] of workersByMiner) {
    for (const [worker, t] of workers) {
      workerKeys.push(keys.worker(address, worker));
      workerArgs.push(String(t.shares), String(t.difficulty), String(t.lastShareMs));
    }
  }
  const call = RECORD_SHARES_LAYOUT.call({
    keys: {
      sharesKey: keys.shares,
      roundKey: keys.roundCurrent,
      roundMetaKey: keys.roundCurrentMeta,
      windowPendingKey: keys.blocksWindowPending,
    },
    args: {
      streamMaxLength: String(streamMaxLength),
      shareCount: String(shares.length),
      minerCount: String(miners.size),
      workerCount: String(workerKeys.length),
      batchDifficulty: String(roundDifficulty),
      batchShares: String(roundShares),
      firstShareMs: firstRoundShareMs,
    },
  });
  call.keys.push(...minerKeys, ...workerKeys);
  call.args.push(...entryArgs, ...minerArgs, ...workerArgs);
  return call;
}
