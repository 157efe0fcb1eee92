import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FuegoPoolError } from '../errors.js';

/**
 * A private redis-server for the demo and for tests: its own loopback port and temp dir, stopped by
 * the PID it started (never anyone else's Redis).
 */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  stop(): Promise<void>;
}

export class PrivateRedisError extends FuegoPoolError<'REDIS_NOT_INSTALLED' | 'REDIS_DID_NOT_START'> {}

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

async function answersPing(port: number): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

async function waitForPing(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if (child.exitCode !== null) {
      throw new PrivateRedisError('REDIS_DID_NOT_START', `redis-server exited with code ${child.exitCode}`);
    }
    if (await answersPing(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new PrivateRedisError(
    'REDIS_DID_NOT_START',
    `redis-server did not answer on port ${port} in ${deadlineMs} ms`,
  );
}

export interface PrivateRedisOptions {
  /** AOF on, for tests that restart Redis and expect data back. */
  readonly appendOnly?: boolean;
  /** Reuse a data dir (e.g. the demo's), instead of a fresh temp dir removed on stop. */
  readonly dir?: string;
  readonly port?: number;
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'fuego-pool-redis-')));
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  args.push('--appendonly', options.appendOnly ? 'yes' : 'no', '--protected-mode', 'yes');
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const spawnError = new Promise<never>((_resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new PrivateRedisError(
              'REDIS_NOT_INSTALLED',
              'redis-server is not installed (apt-get install redis-server)',
            )
          : error,
      );
    });
  });
  try {
    await Promise.race([waitForPing(port, child, 10_000), spawnError]);
  } catch (error) {
    child.kill('SIGKILL');
    if (ownDir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
