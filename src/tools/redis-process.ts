import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { FuegoPoolError } from '../errors.js';

/**
 * One redis-server (or sentinel) process started by this project, for the demo, tests and
 * benchmarks: spawned on a loopback port, ready once it answers PING, stopped by its own PID.
 */

/** How long one redis-server may take to answer PING after spawn. */
const START_DEADLINE_MS = 10_000;
const POLL_MS = 50;

export type RedisDeploymentErrorCode = 'REDIS_NOT_INSTALLED' | 'REDIS_DID_NOT_START' | 'REDIS_SETUP_FAILED';

export class RedisDeploymentError extends FuegoPoolError<RedisDeploymentErrorCode> {}

/** One redis-server (or sentinel) process we started: stopped by its own PID, never by name. */
export interface RedisProcess {
  readonly port: number;
  readonly pid: number;
  /** SIGTERM (SIGKILL after 5 s) and wait for the exit. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL at once (a crash, for fault tests) and wait for the exit. */
  kill(): Promise<void>;
  readonly exited: boolean;
}

/** End offset of the RESP value starting at `at`, or -1 while it is incomplete (bulk lengths in bytes). */
function respEnd(reply: Buffer, at: number): number {
  const lineEnd = reply.indexOf('\r\n', at);
  if (lineEnd === -1) return -1;
  const type = String.fromCharCode(reply[at] ?? 0);
  const length = Number(reply.toString('latin1', at + 1, lineEnd));
  if (type === '$') {
    if (length < 0) return lineEnd + 2;
    const end = lineEnd + 2 + length + 2;
    return reply.length >= end ? end : -1;
  }
  if (type === '*') {
    let position = lineEnd + 2;
    for (let i = 0; i < length; i++) {
      position = respEnd(reply, position);
      if (position === -1) return -1;
    }
    return position;
  }
  return lineEnd + 2;
}

/** Sends one inline command and returns the raw reply text ('' if the connection failed). */
export async function rawRedisCommand(port: number, command: string, timeoutMs = 1_000): Promise<string> {
  return await new Promise<string>((resolve) => {
    const socket = new Socket();
    let reply = Buffer.alloc(0);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply.toString('utf8'));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.once('error', done);
    socket.on('data', (data: Buffer) => {
      reply = Buffer.concat([reply, data]);
      if (respEnd(reply, 0) !== -1) done();
    });
    socket.connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
  });
}

export async function waitUntil(
  check: () => Promise<boolean>,
  deadlineMs: number,
  what: string,
): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new RedisDeploymentError('REDIS_SETUP_FAILED', `${what} not reached within ${deadlineMs} ms`);
}

/**
 * The flags every data node started here shares: listens on 127.0.0.1:`port` only, keeps its files
 * in `dir`, takes no RDB snapshots, and appends to an AOF only when asked: then fsynced before each
 * reply (appendfsync always), so that payouts may run on it (see src/store/redis-durability.ts).
 */
export function dataNodeArgs(port: number, dir: string, appendOnly: boolean): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    appendOnly ? 'yes' : 'no',
    ...(appendOnly ? ['--appendfsync', 'always'] : []),
  ];
}

/**
 * util-linux's setpriv (on every Debian and Ubuntu): it sets a parent-death signal and execs
 * redis-server in its place (same PID), so a redis-server we started stops when this process dies,
 * even by SIGKILL. Where it is missing, redis-server is spawned directly.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path));
/** setpriv's exit code when the program to run is not found. */
const SETPRIV_EXEC_NOT_FOUND = 127;

function notInstalled(): RedisDeploymentError {
  return new RedisDeploymentError(
    'REDIS_NOT_INSTALLED',
    'redis-server is not installed (apt-get install redis-server)',
  );
}

/**
 * Spawns `redis-server <args>` bound to 127.0.0.1:`port` and waits for PONG. The child never
 * outlives a failed start nor this process; `stop()` signals only this PID.
 */
export async function spawnRedisProcess(port: number, args: readonly string[]): Promise<RedisProcess> {
  const child: ChildProcess = SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', 'redis-server', ...args], { stdio: 'ignore' })
    : spawn('redis-server', [...args], { stdio: 'ignore' });
  let exited = false;
  let exitCode: number | null = null;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      exitCode = code;
      resolve();
    }),
  );
  const spawnFailed = new Promise<never>((_resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      exited = true;
      reject(error.code === 'ENOENT' ? notInstalled() : error);
    });
  });
  const answers = async (): Promise<boolean> => {
    if (exited && exitCode === SETPRIV_EXEC_NOT_FOUND && SETPRIV) throw notInstalled();
    if (exited) {
      throw new RedisDeploymentError('REDIS_DID_NOT_START', `redis-server on port ${port} exited at start`);
    }
    return (await rawRedisCommand(port, 'PING', 500)).startsWith('+PONG');
  };
  try {
    await Promise.race([waitUntil(answers, START_DEADLINE_MS, `redis-server on port ${port}`), spawnFailed]);
  } catch (error) {
    if (!exited) {
      child.kill('SIGKILL');
      await exit;
    }
    throw error instanceof RedisDeploymentError && error.code === 'REDIS_SETUP_FAILED'
      ? new RedisDeploymentError('REDIS_DID_NOT_START', error.message)
      : error;
  }
  const signal = async (name: NodeJS.Signals, graceMs: number): Promise<void> => {
    if (exited) return;
    child.kill(name);
    const forced = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exit;
    clearTimeout(forced);
  };
  return {
    port,
    pid: child.pid ?? -1,
    get exited() {
      return exited;
    },
    stop: () => signal('SIGTERM', 5_000),
    kill: () => signal('SIGKILL', 0),
  };
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}
