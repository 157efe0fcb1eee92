import { availableParallelism } from 'node:os';
import type { PoolConfig } from '../../config/schema.js';
import { openFilesBudget, readOpenFilesLimit } from '../open-files-budget.js';

/** The most stratum processes one pool process starts (the config's limit for a number too). */
export const MAX_STRATUM_PROCESSES = 64;
/**
 * "auto" starts at most this many stratum processes per core, however many the open-files limit
 * would need: beyond it a process costs more memory than the connections it could add are worth,
 * and the start-up warning tells the operator to raise the limit instead.
 */
const AUTO_MAX_PER_CORE = 4;
/** Connections reach the children round-robin, and leave unevenly: room for an uneven spread. */
const SPREAD_SLACK = 0.9;

/** What "auto" is judged by: this host's cores and a process's open-files limit (null: unknown or none). */
export interface StratumHost {
  readonly cores?: number;
  readonly openFilesLimit?: number | null;
}

/**
 * How many stratum processes `stratum.processes` means here. "auto" is one per core, or more where
 * a process's open-files limit holds fewer than `stratum.limits.maxConnections` between them (up to
 * four per core): a host that allows 20,000 open files per process needs six for 100,000 miners.
 */
export function stratumProcessCount(config: Readonly<PoolConfig>, host: StratumHost = {}): number {
  const { processes, limits } = config.stratum;
  if (processes !== 'auto') return processes;
  const cores = Math.max(1, host.cores ?? availableParallelism());
  const limit = host.openFilesLimit !== undefined ? host.openFilesLimit : (readOpenFilesLimit() ?? null);
  const needed = limit === null ? 1 : processesHolding(limits.maxConnections, limit);
  return Math.min(MAX_STRATUM_PROCESSES, cores * AUTO_MAX_PER_CORE, Math.max(cores, needed));
}

/** Stratum children (no API in a child) that hold `connections` between them with `limit` open files each. */
function processesHolding(connections: number, limit: number): number {
  const perProcess = Math.max(1, Math.floor(openFilesBudget(limit, null).stratum * SPREAD_SLACK));
  return Math.ceil(connections / perProcess);
}
