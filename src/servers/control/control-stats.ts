import type { Redis } from 'ioredis';
import { createHashrateKeys } from '../../store/hashrate-keys.js';
import { HashrateReader } from '../../store/hashrate-reader.js';
import type { ControlStats } from './control-handler.js';
import type { TopMinerView } from './control-protocol.js';

/**
 * Miners whose hashrate is read for `fuego-pool miners`: the most recently active ones. A miner
 * with a real share of the pool submits every few seconds, so it is among them; the bound keeps
 * the pipeline at 2 x this many HMGETs however large the pool grows.
 */
export const DEFAULT_MAX_CANDIDATES = 5_000;

/**
 * The control socket's view of the hashrate buckets (src/store/hashrate-keys.ts): the pool's
 * hashrate and active counts, and the top miners by hashrate over a window. Read-only; every call
 * is a bounded number of pipelined commands, never a KEYS or SCAN.
 */
export function createControlStats(
  options: { readonly keyPrefix: string; readonly maxCandidates?: number },
  modules: { readonly redis: Redis; readonly clock?: () => number },
): ControlStats {
  const { redis } = modules;
  const clock = modules.clock ?? Date.now;
  const keys = createHashrateKeys(options.keyPrefix);
  const reader = new HashrateReader({ keyPrefix: options.keyPrefix }, { redis });
  const maxCandidates = options.maxCandidates ?? DEFAULT_MAX_CANDIDATES;
  return {
    async poolHashrate(windowMs) {
      const now = clock();
      const [hashrate, counts] = await Promise.all([
        reader.poolHashrate(now, windowMs),
        reader.activeCounts(now, windowMs),
      ]);
      return { hashrate, miners: counts.miners, workers: counts.workers };
    },

    async topMiners(limit, windowMs): Promise<TopMinerView[]> {
      const now = clock();
      const since = String(now - windowMs);
      const flat = await redis.zrevrangebyscore(
        keys.activeMiners,
        '+inf',
        since,
        'WITHSCORES',
        'LIMIT',
        0,
        maxCandidates,
      );
      const lastShare = new Map<string, number>();
      for (let i = 0; i + 1 < flat.length; i += 2) lastShare.set(flat[i]!, Number(flat[i + 1]));
      const rates = await reader.minersHashrate([...lastShare.keys()], now, windowMs);
      const top = [...rates].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
      const pipeline = redis.pipeline();
      for (const [address] of top) pipeline.zcount(keys.minerWorkers(address), since, '+inf');
      const workerCounts = top.length === 0 ? [] : ((await pipeline.exec()) ?? []);
      return top.map(([address, hashrate], index) => {
        const reply = workerCounts[index];
        return {
          address,
          hashrate,
          activeWorkers: reply === undefined || reply[0] !== null ? 0 : Number(reply[1]),
          lastShareMs: lastShare.get(address) ?? 0,
        };
      });
    },
  };
}
