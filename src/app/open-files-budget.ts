import { readFileSync } from 'node:fs';

/**
 * Open files a pool process keeps for itself besides client connections: Redis connections,
 * verifier threads, the IPC channel, listeners, log and control files.
 */
export const OWN_OPEN_FILES = 512;
/** The API may take at most this part of what is left: the miners come first. */
const API_SHARE = 1 / 4;

/** The soft and hard open-files limits in the text of a /proc/PID/limits file ("unlimited": Infinity). */
export function parseOpenFilesLimits(text: string): { soft: number; hard: number } | undefined {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (match === null) return undefined;
  const value = (field: string | undefined) =>
    field === undefined || field === 'unlimited' ? Number.POSITIVE_INFINITY : Number(field);
  return { soft: value(match[1]), hard: value(match[2]) };
}

/**
 * This process's open-files limit (the soft one, which node raised to the hard one at start), from
 * /proc/self/limits; undefined where that cannot be read (not Linux) or the limit is unlimited.
 */
export function readOpenFilesLimit(limitsPath = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsPath, 'utf8');
  } catch {
    return undefined;
  }
  const soft = parseOpenFilesLimits(text)?.soft;
  return soft === undefined || !Number.isFinite(soft) ? undefined : soft;
}

/** How one process shares its open files out, in connections. */
export interface OpenFilesBudget {
  readonly limit: number;
  /** Stratum connections this process may hold. */
  readonly stratum: number;
  /** API connections this process may hold (0 without the API). */
  readonly api: number;
}

/**
 * Shares `limit` open files out: OWN_OPEN_FILES for the process itself, then the API (when it runs
 * here, `apiMaxConnections`, but at most a quarter of the rest), then the stratum connections.
 * Past the limit the kernel refuses every new file, not just a connection: a Redis reconnect or a
 * verifier restart would fail too, so the pool refuses connections before it gets there.
 */
export function openFilesBudget(limit: number, apiMaxConnections: number | null): OpenFilesBudget {
  const usable = Math.max(0, limit - OWN_OPEN_FILES);
  const api = apiMaxConnections === null ? 0 : Math.min(apiMaxConnections, Math.floor(usable * API_SHARE));
  return { limit, api, stratum: usable - api };
}

/** What the process's caps are set to, for openFilesShortfalls. */
export interface ConfiguredConnections {
  /** stratum.limits.maxConnections, or null without the stratum role. */
  readonly stratumMaxConnections: number | null;
  /** The processes the stratum connections are spread over (each has `limit` open files). */
  readonly stratumProcesses: number;
  /** api.maxConnections, or null without the API in this process. */
  readonly apiMaxConnections: number | null;
}

/**
 * What an operator should hear at start when the open-files limit holds fewer connections than
 * the config allows: one line per cap that is cut, saying what the host holds and what to change.
 */
export function openFilesShortfalls(limit: number, configured: ConfiguredConnections): string[] {
  const lines: string[] = [];
  const raise = `raise the open-files limit (LimitNOFILE in a systemd unit, \`ulimit -n\`, \`--ulimit nofile=\` for docker)`;
  const { stratumMaxConnections, stratumProcesses, apiMaxConnections } = configured;
  if (stratumMaxConnections !== null) {
    // Children have no API: all but their own files go to miners.
    const perProcess = openFilesBudget(limit, stratumProcesses > 1 ? null : apiMaxConnections).stratum;
    const holds = perProcess * stratumProcesses;
    if (holds < stratumMaxConnections) {
      lines.push(
        `open-files limit ${limit} holds ${holds} stratum connections${stratumProcesses > 1 ? ` (${perProcess} in each of ${stratumProcesses} stratum processes)` : ''}, fewer than stratum.limits.maxConnections (${stratumMaxConnections}): further miners are refused; ${raise}, or run more stratum.processes`,
      );
    }
  }
  if (apiMaxConnections !== null) {
    const apiBudget = openFilesBudget(limit, apiMaxConnections).api;
    if (apiBudget < apiMaxConnections) {
      lines.push(
        `open-files limit ${limit} holds ${apiBudget} API connections, fewer than api.maxConnections (${apiMaxConnections}): further ones are refused; ${raise}`,
      );
    }
  }
  return lines;
}

/** The connection caps one process's open files allow, and what to tell the operator. */
export interface OpenFilesPlan {
  /** The limit; null where it is not known (then nothing is capped). */
  readonly limit: number | null;
  /** Stratum connections this process may hold; undefined when they are not held here or not capped. */
  readonly stratum: number | undefined;
  /** API connections this process may hold; undefined without the API here or without a limit. */
  readonly api: number | undefined;
  /** One line per configured cap the limit cuts (none when `quiet`). */
  readonly warnings: readonly string[];
}

/**
 * The caps of a process with `limit` open files: with one stratum process the stratum connections
 * held here, with more each child works its own share out (it runs this too, with its config's
 * one process and no API); the API's when it runs here.
 */
export function openFilesPlan(
  limit: number | null,
  configured: ConfiguredConnections,
  options: { readonly quiet: boolean },
): OpenFilesPlan {
  if (limit === null) return { limit, stratum: undefined, api: undefined, warnings: [] };
  const { stratumMaxConnections, stratumProcesses, apiMaxConnections } = configured;
  const holdsStratum = stratumMaxConnections !== null && stratumProcesses === 1;
  const budget = openFilesBudget(limit, apiMaxConnections);
  return {
    limit,
    stratum: holdsStratum ? budget.stratum : undefined,
    api: apiMaxConnections === null ? undefined : budget.api,
    warnings: options.quiet ? [] : openFilesShortfalls(limit, configured),
  };
}
