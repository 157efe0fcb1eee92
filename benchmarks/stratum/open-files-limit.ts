import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseOpenFilesLimits } from '../../src/app/open-files-budget.js';

/**
 * The open-files limit of the connections benchmark. Node cannot call setrlimit on itself, so the
 * benchmark runs itself again under `prlimit --nofile=M:M` (util-linux; `bash -c 'ulimit -n M'`
 * without it), and the pool and load generators it starts inherit the limit. Raising the hard
 * limit needs root with CAP_SYS_RESOURCE, and at most /proc/sys/fs/nr_open.
 */

/** Set in the re-run process, so it does not try again. */
const RERUN_ENV = 'FUEGO_BENCH_NOFILE_RERUN';

export interface OpenFilesLimit {
  readonly soft: number;
  readonly hard: number;
}

/** The soft and hard open-files limits of `pid` (/proc/PID/limits; "unlimited" is Infinity). */
export function readOpenFiles(pid: number | 'self' = 'self'): OpenFilesLimit {
  const text = readFileSync(`/proc/${pid}/limits`, 'utf8');
  return parseOpenFilesLimits(text) ?? { soft: Number.POSITIVE_INFINITY, hard: Number.POSITIVE_INFINITY };
}

/** fs.nr_open: the highest open-files limit the kernel allows a process. */
export function readNrOpen(): number {
  return Number(readFileSync('/proc/sys/fs/nr_open', 'utf8').trim());
}

/** The command that runs `argv` with the open-files limit at `limit` (soft and hard). */
function limitedCommand(limit: number, argv: readonly string[]): [string, string[]] {
  const prlimit = spawnSync('prlimit', ['--version'], { stdio: 'ignore' });
  if (prlimit.error === undefined && prlimit.status === 0)
    return ['prlimit', [`--nofile=${limit}:${limit}`, ...argv]];
  return ['bash', ['-c', `ulimit -n ${limit} && exec "$@"`, 'bash', ...argv]];
}

/** Whether this process may give its children an open-files limit of `limit` (a dry run). */
function mayRaiseTo(limit: number): boolean {
  const [command, args] = limitedCommand(limit, ['true']);
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/**
 * Runs this benchmark again with the open-files limit at `wanted` (capped at fs.nr_open) and exits
 * with its exit code; signals are passed on to it. Returns (without re-running) when the limit is
 * already there, when this is the re-run, or when the hard limit may not be raised (then the soft
 * one is already at it: Node raises its soft limit to the hard one when it starts).
 */
export async function rerunWithOpenFiles(wanted: number): Promise<void> {
  if (process.env[RERUN_ENV] === '1') return;
  const target = Math.min(wanted, readNrOpen());
  const current = readOpenFiles();
  if (current.soft >= target) return;
  if (!mayRaiseTo(target)) return;
  const [command, args] = limitedCommand(target, [
    process.execPath,
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, [RERUN_ENV]: '1' } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise<number>((resolve) =>
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))),
  );
  process.exit(code);
}

/** What to run to give every process of the benchmark `wanted` open files, when it could not. */
export function howToRaise(wanted: number, miners: number): string {
  const limit = Math.min(wanted, readNrOpen());
  return `as root with CAP_SYS_RESOURCE: \`prlimit --nofile=${limit}:${limit} npm run bench:connections -- --miners ${miners}\` (or \`ulimit -Hn ${limit}; ulimit -n ${limit}\` in that shell, LimitNOFILE=${limit} in a systemd unit, \`--ulimit nofile=${limit}:${limit}\` for docker)`;
}
