import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  dataNodeArgs,
  freePort,
  RedisDeploymentError,
  type RedisProcess,
  rawRedisCommand,
  spawnRedisProcess,
  waitUntil,
} from './redis-process.js';

export {
  RedisDeploymentError,
  type RedisProcess,
  rawRedisCommand,
  spawnRedisProcess,
} from './redis-process.js';

const execFileAsync = promisify(execFile);

/** How long `redis-cli --cluster create` plus slot propagation may take. */
const CLUSTER_READY_DEADLINE_MS = 20_000;

/** Two distinct free ports: a node's client port and its cluster bus port. */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export interface RedisClusterDeployment {
  /** The master nodes, each serving a third of the slots. */
  readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  readonly processes: readonly RedisProcess[];
  readonly dir: string;
  /** Stops every node by PID and removes the temp dir. */
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Master count; `redis-cli --cluster create` needs at least 3. */
  readonly masters?: number;
  /** AOF on every node (fsynced before each reply). */
  readonly appendOnly?: boolean;
}

/**
 * A throw-away Redis Cluster on loopback for tests: `masters` redis-server nodes in cluster mode
 * (own free client and bus ports, own temp dirs, AOF only when asked), joined with
 * `redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`, returned once every node
 * reports cluster_state:ok.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisClusterDeployment> {
  const masters = options.masters ?? 3;
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-redis-cluster-'));
  const processes: RedisProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(processes.map((p) => p.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports = await freePorts(masters * 2);
    for (let i = 0; i < masters; i++) {
      const port = ports[i]!;
      const nodeDir = join(dir, `node-${i}`);
      await mkdir(nodeDir);
      processes.push(
        await spawnRedisProcess(port, [
          ...dataNodeArgs(port, nodeDir, options.appendOnly ?? false),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          // Explicit bus port: the default (port + 10000) may be taken or beyond 65535.
          '--cluster-port',
          String(ports[masters + i]!),
          '--cluster-node-timeout',
          '2000',
        ]),
      );
    }
    const endpoints = processes.map((p) => `127.0.0.1:${p.port}`);
    try {
      await execFileAsync(
        'redis-cli',
        ['--cluster', 'create', ...endpoints, '--cluster-replicas', '0', '--cluster-yes'],
        { timeout: CLUSTER_READY_DEADLINE_MS },
      );
    } catch (error) {
      const output = (error as { stdout?: string; stderr?: string }).stdout ?? '';
      throw new RedisDeploymentError(
        'REDIS_SETUP_FAILED',
        `redis-cli --cluster create failed: ${(error as Error).message} ${output.slice(-500)}`,
      );
    }
    await waitUntil(
      async () => {
        const states = await Promise.all(processes.map((p) => rawRedisCommand(p.port, 'CLUSTER INFO')));
        return states.every((info) => info.includes('cluster_state:ok'));
      },
      CLUSTER_READY_DEADLINE_MS,
      'cluster_state:ok on every node',
    );
    return {
      nodes: processes.map((p) => ({ host: '127.0.0.1', port: p.port })),
      processes,
      dir,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
