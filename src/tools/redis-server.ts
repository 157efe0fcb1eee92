import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataNodeArgs, freePort, spawnRedisProcess } from './redis-process.js';

export { freePort };

/**
 * A private redis-server for the demo and for tests: its own loopback port and temp dir, stopped by
 * the PID it started (never anyone else's Redis).
 */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The Unix socket it also listens on (`unixSocket`), else undefined. */
  readonly socketPath?: string;
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** AOF on, for tests that restart Redis and expect data back. */
  readonly appendOnly?: boolean;
  /** Reuse a data dir (e.g. the demo's), instead of a fresh temp dir removed on stop. */
  readonly dir?: string;
  readonly port?: number;
  /** Listen on a Unix socket in the data dir too (mode 0700). */
  readonly unixSocket?: boolean;
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'fuego-pool-redis-')));
  const port = options.port ?? (await freePort());
  const socketPath = options.unixSocket ? join(dir, 'redis.sock') : undefined;
  const args = [
    ...dataNodeArgs(port, dir, options.appendOnly ?? false),
    '--protected-mode',
    'yes',
    ...(socketPath === undefined ? [] : ['--unixsocket', socketPath, '--unixsocketperm', '700']),
  ];
  let server: Awaited<ReturnType<typeof spawnRedisProcess>>;
  try {
    server = await spawnRedisProcess(port, args);
  } catch (error) {
    if (ownDir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    ...(socketPath === undefined ? {} : { socketPath }),
    async stop() {
      await server.stop();
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
