import type { HashrateReader } from '../../store/hashrate/hashrate-reader.js';
import type { ControlStats } from './control-handler.js';

/**
 * Miners whose hashrate is read for `fuego-pool miners`: the most recently active ones. A miner
 * with a real share of the pool submits every few seconds, so it is among them; the bound keeps
 * the read bounded however large the pool grows.
 */
export const DEFAULT_MAX_CANDIDATES = 5_000;

/**
 * The control socket's view of the hashrate buckets: the pool's hashrate and active counts, and
 * the top miners by hashrate over a window. Read-only; every call is a bounded number of
 * pipelined commands (see HashrateReader), never a KEYS or SCAN.
 */
export function createControlStats(
  options: { readonly maxCandidates?: number },
  modules: {
    readonly reader: Pick<HashrateReader, 'poolHashrate' | 'activeCounts' | 'topMiners'>;
    readonly clock?: () => number;
  },
): ControlStats {
  const { reader } = modules;
  const clock = modules.clock ?? Date.now;
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
    topMiners: (limit, windowMs) => reader.topMiners(limit, clock(), windowMs, maxCandidates),
  };
}
