import { availableParallelism } from 'node:os';
import type { PoolConfig } from '../../config/schema.js';

/** The most stratum processes one pool process starts (the config's limit for a number too). */
export const MAX_STRATUM_PROCESSES = 64;

/** How many stratum processes `stratum.processes` means here: "auto" is one per core. */
export function stratumProcessCount(config: Readonly<PoolConfig>, cores = availableParallelism()): number {
  const { processes } = config.stratum;
  return processes === 'auto' ? Math.min(MAX_STRATUM_PROCESSES, Math.max(1, cores)) : processes;
}
