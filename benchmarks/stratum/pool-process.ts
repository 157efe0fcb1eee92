import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PoolConfigInput } from '../../src/config/schema.js';
import { findPackageRoot } from '../../src/package-root.js';

/** One pino line of the pool (level, time in epoch ms, msg and the logged fields). */
export interface PoolLogLine {
  readonly level: number;
  readonly time: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface PoolProcess {
  readonly pid: number;
  /** The stratum port the pool bound (its config says 0); 0 for a process without the stratum role. */
  readonly stratumPort: number;
  /** Every log line so far (the pool logs little at info: templates, start, stop). */
  readonly logs: readonly PoolLogLine[];
  /** Lines that were not JSON (a crash trace, say). */
  readonly rawOutput: readonly string[];
  /** SIGTERM by PID, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const STRATUM_LISTENING = 'stratum listening';

export interface PoolProcessOptions {
  /** Put after `start --config FILE`, e.g. `['--role', 'leader', '--node-id', '100']`. */
  readonly args?: readonly string[];
  /**
   * The log message that says the process is ready (default "stratum listening", whose `ports`
   * give `stratumPort`); a leader-only process logs "leader lease acquired", say.
   */
  readonly readyMessage?: string;
  /** Node flags of this benchmark's own (e.g. `--trace-gc`), after OPERATOR_NODE_ARGS. */
  readonly nodeArgs?: readonly string[];
  /** Called with each line that is not JSON (a crash trace, `--trace-gc` lines), as it arrives. */
  readonly onRawLine?: (line: string) => void;
}

/**
 * The node flags the pool runs with in deploy/fuego-pool.service and `npm run devnet`: a 2 MB
 * young generation (see the README's abuse figures), so the benchmarks run it as operators do.
 * FUEGO_BENCH_POOL_NODE_ARGS="--max-semi-space-size=0" gives V8's default back (the last wins).
 */
export const OPERATOR_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2'];
/**
 * Extra node flags for the pool process, space-separated, e.g. to profile it:
 * `FUEGO_BENCH_POOL_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` (NODE_OPTIONS refuses --cpu-prof).
 */
export const POOL_NODE_ARGS_ENV = 'FUEGO_BENCH_POOL_NODE_ARGS';

/**
 * Runs the product as an operator would, `node dist/cli.js start --config FILE`, in its own
 * process, so its RSS and CPU are its own. The config is written to a temp dir removed on stop.
 * Resolves once the pool logs "stratum listening" with its bound ports (or `readyMessage`).
 */
export async function startPoolProcess(
  config: PoolConfigInput,
  options: PoolProcessOptions = {},
): Promise<PoolProcess> {
  const readyMessage = options.readyMessage ?? STRATUM_LISTENING;
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-bench-'));
  const configFile = join(dir, 'pool.json');
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const cli = join(findPackageRoot(), 'dist', 'cli.js');
  const nodeArgs = (process.env[POOL_NODE_ARGS_ENV] ?? '').split(' ').filter((a) => a.length > 0);
  const args = [
    ...OPERATOR_NODE_ARGS,
    ...(options.nodeArgs ?? []),
    ...nodeArgs,
    cli,
    'start',
    '--config',
    configFile,
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: PoolLogLine[] = [];
  const rawOutput: string[] = [];
  let onLine: ((line: PoolLogLine) => void) | undefined;
  const collect = (text: string) => {
    try {
      const line = JSON.parse(text) as PoolLogLine;
      logs.push(line);
      onLine?.(line);
    } catch {
      rawOutput.push(text);
      options.onRawLine?.(text);
    }
  };
  createInterface({ input: child.stdout! }).on('line', collect);
  createInterface({ input: child.stderr! }).on('line', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (graceMs = 15_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const stratumPort = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the pool did not start in time')), READY_TIMEOUT_MS);
      onLine = (line) => {
        if (line.msg !== readyMessage) return;
        const ports = line['ports'];
        if (readyMessage === STRATUM_LISTENING && !Array.isArray(ports)) return;
        clearTimeout(timer);
        resolve(Array.isArray(ports) ? Number((ports[0] as { port: number }).port) : 0);
      };
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the pool exited with code ${code}: ${rawOutput.slice(-5).join(' | ')}`));
      });
    });
    onLine = undefined;
    return { pid: requirePid(child), stratumPort, logs, rawOutput, stop };
  } catch (error) {
    await stop(2_000);
    throw error;
  }
}

function requirePid(child: ChildProcess): number {
  if (child.pid === undefined) throw new Error('the pool process has no pid');
  return child.pid;
}
