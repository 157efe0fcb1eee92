import type { Redis } from 'ioredis';
import type { AcceptedShare } from '../../model/share-ledger.js';
import { execStorePipeline, StoreError } from '../store-error.js';
import type { HashrateKeys } from './hashrate-keys.js';

/**
 * The worker the shares of a miner's names beyond the cap are counted under. Sanitised worker
 * names hold only letters, digits, `.`, `_` and `-` (login.ts), so no miner can name one so.
 */
export const OTHER_WORKERS = '(others)';

export function checkMaxWorkersPerMiner(value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new StoreError('INVALID_OPTION', 'maxWorkersPerMiner must be an integer >= 1', { value });
  }
}

/**
 * The shares with each worker name a miner may not have statistics for renamed OTHER_WORKERS.
 *
 * A miner chooses its worker names freely, and every name costs a ZSET member and a minute
 * HASH per hour in Redis (~15 KB a day) and rows in the API's replies, so a miner cycling through
 * 10 000 names would cost 150 MB. A name is kept when the miner's worker set already holds it,
 * or while the set (OTHER_WORKERS aside) has fewer than `maxWorkersPerMiner` names; the rest of
 * its hashrate is still counted, under OTHER_WORKERS. One pipelined read (ZCARD + ZMSCORE per
 * miner in the batch) before the write; two stratum processes admitting at once may pass the cap
 * by a batch's new names, which the write's ZREMRANGEBYRANK trims again (hashrate-buckets.ts).
 */
export async function admitWorkers(
  redis: Redis,
  keys: HashrateKeys,
  shares: readonly AcceptedShare[],
  maxWorkersPerMiner: number,
): Promise<readonly AcceptedShare[]> {
  const namesOf = new Map<string, Set<string>>();
  for (const share of shares) {
    let names = namesOf.get(share.address);
    if (names === undefined) {
      names = new Set();
      namesOf.set(share.address, names);
    }
    names.add(share.worker);
  }
  const miners = [...namesOf].map(([address, names]) => ({ address, names: [...names, OTHER_WORKERS] }));
  const pipeline = redis.pipeline();
  for (const { address, names } of miners) {
    pipeline.zcard(keys.minerWorkers(address));
    pipeline.zmscore(keys.minerWorkers(address), ...names);
  }
  const replies = await execStorePipeline('admitWorkers', pipeline);
  const refused = new Map<string, Set<string>>();
  miners.forEach(({ address, names }, index) => {
    const scores = replies[index * 2 + 1] as (string | null)[];
    const othersKnown = scores.at(-1) !== null;
    let room = maxWorkersPerMiner - (Number(replies[index * 2]) - (othersKnown ? 1 : 0));
    const out = new Set<string>();
    names.slice(0, -1).forEach((name, at) => {
      if (scores[at] !== null || name === OTHER_WORKERS) return;
      if (room > 0) room -= 1;
      else out.add(name);
    });
    if (out.size > 0) refused.set(address, out);
  });
  if (refused.size === 0) return shares;
  return shares.map((share) =>
    refused.get(share.address)?.has(share.worker) === true ? { ...share, worker: OTHER_WORKERS } : share,
  );
}
