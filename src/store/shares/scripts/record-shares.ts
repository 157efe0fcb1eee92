import type { AcceptedShare } from '../../../model/share-ledger.js';
import type { ScriptCall } from '../../scripts/define-script.js';
import { pushShareEntryValues } from '../share-entry.js';
import type { ShareKeys } from '../share-keys.js';

/**
 * record_shares: a batch of shares in one atomic call.
 *
 * KEYS: 1 `<p>:shares`, 2 `<p>:round:current`, 3 `<p>:round:current:meta`,
 *       4 `<p>:blocks:window-pending`, then M miner keys, then W worker keys.
 * ARGV: 1 stream max length (approximate trim, skipped while a found block's window is not fixed:
 *       its entry must stay readable), 2 share count N, 3 M, 4 W,
 *       5 round difficulty of the batch (pool shares, decimal), 6 round share count of the batch,
 *       7 timestamp of the batch's first pool share ("" when none): the round's startedAtMs if
 *         the round has none yet,
 *       then N x 7 share values (SHARE_ENTRY_FIELDS order),
 *       then M x 5 per miner: address, round difficulty, shares, difficulty total, last share ms,
 *       then W x 3 per worker: shares, difficulty total, last share ms.
 * Returns the N stream entry ids in batch order.
 *
 * Sums are computed in TypeScript with bigint and handed over as decimal strings: Lua numbers are
 * doubles, so the script never does arithmetic on a difficulty, it only passes strings to
 * HINCRBY (exact 64-bit). Aggregating per miner/worker also keeps the script short under load
 * (a few commands per distinct miner instead of nine per share).
 */
export const RECORD_SHARES_LUA = `
local nShares = tonumber(ARGV[2])
local nMiners = tonumber(ARGV[3])
local nWorkers = tonumber(ARGV[4])
local ids = {}
local i = 8
for s = 1, nShares do
  ids[s] = redis.call('XADD', KEYS[1], '*', 'a', ARGV[i], 'w', ARGV[i + 1], 'd', ARGV[i + 2],
    'h', ARGV[i + 3], 't', ARGV[i + 4], 's', ARGV[i + 5], 'x', ARGV[i + 6])
  i = i + 7
end
if ARGV[6] ~= '0' then
  redis.call('HINCRBY', KEYS[3], 'totalDifficulty', ARGV[5])
  redis.call('HINCRBY', KEYS[3], 'shareCount', ARGV[6])
  redis.call('HSETNX', KEYS[3], 'startedAtMs', ARGV[7])
end
for m = 1, nMiners do
  local key = KEYS[4 + m]
  if ARGV[i + 1] ~= '0' then
    redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
  end
  redis.call('HINCRBY', key, 'sharesValid', ARGV[i + 2])
  redis.call('HINCRBY', key, 'difficultyTotal', ARGV[i + 3])
  redis.call('HSET', key, 'lastShareMs', ARGV[i + 4])
  i = i + 5
end
for w = 1, nWorkers do
  local key = KEYS[4 + nMiners + w]
  redis.call('HINCRBY', key, 'sharesValid', ARGV[i])
  redis.call('HINCRBY', key, 'difficultyTotal', ARGV[i + 1])
  redis.call('HSET', key, 'lastShareMs', ARGV[i + 2])
  i = i + 3
end
if redis.call('ZCARD', KEYS[4]) == 0 then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[1])
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
  return {
    keys: [
      keys.shares,
      keys.roundCurrent,
      keys.roundCurrentMeta,
      keys.blocksWindowPending,
      ...minerKeys,
      ...workerKeys,
    ],
    args: [
      String(streamMaxLength),
      String(shares.length),
      String(miners.size),
      String(workerKeys.length),
      String(roundDifficulty),
      String(roundShares),
      firstRoundShareMs,
      ...entryArgs,
      ...minerArgs,
      ...workerArgs,
    ],
  };
}
