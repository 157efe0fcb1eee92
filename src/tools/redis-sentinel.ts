import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dataNodeArgs,
  freePort,
  RedisDeploymentError,
  type RedisProcess,
  rawRedisCommand,
  spawnRedisProcess,
  waitUntil as until,
} from './redis-process.js';

const REPLICA_SYNC_DEADLINE_MS = 15_000;
const FAILOVER_DEADLINE_MS = 30_000;

export interface RedisSentinelDeployment {
  /** The name the sentinels monitor (ioredis `name`). */
  readonly masterName: string;
  readonly sentinels: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** Data nodes in start order: [0] starts as master, [1] as its replica. */
  readonly dataNodes: readonly RedisProcess[];
  readonly sentinelProcesses: readonly RedisProcess[];
  readonly dir: string;
  /** The port the sentinels currently name as master. */
  masterPort(): Promise<number>;
  /**
   * SENTINEL FAILOVER, then waits until the sentinels name the other node as master and it answers
   * role:master. Returns the new master port. The old master is still a writable master at that
   * moment: Sentinel reconfigures it only at its next INFO poll (up to ~10 s later).
   */
  failover(): Promise<number>;
  /** Waits until the node on `port` is a replica with its link to the master up (its old data gone). */
  waitForReplica(port: number): Promise<void>;
  /** Stops sentinels and data nodes by PID and removes the temp dir. */
  stop(): Promise<void>;
}

export interface RedisSentinelOptions {
  readonly masterName?: string;
  /** 1 (enough for SENTINEL FAILOVER, which needs no quorum) or 3. */
  readonly sentinelCount?: number;
  /** AOF on the data nodes. */
  readonly appendOnly?: boolean;
}

/** `SENTINEL get-master-addr-by-name` → port, or null before the sentinel knows. */
async function sentinelMasterPort(sentinelPort: number, masterName: string): Promise<number | null> {
  const reply = await rawRedisCommand(sentinelPort, `SENTINEL get-master-addr-by-name ${masterName}`);
  // *2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n
  const match = /^\*2\r\n\$\d+\r\n[^\r]*\r\n\$\d+\r\n(\d+)\r\n/.exec(reply);
  return match ? Number(match[1]) : null;
}

async function infoField(port: number, section: string, field: string): Promise<string | undefined> {
  const info = await rawRedisCommand(port, `INFO ${section}`);
  return new RegExp(`^${field}:(.*)\\r?$`, 'm').exec(info)?.[1]?.trim();
}

/**
 * A throw-away Sentinel setup on loopback for tests: one master, one replica (`--replicaof`) and
 * `sentinelCount` sentinels (`redis-server <conf> --sentinel`, quorum 1, down-after 1 s), each with
 * its own free port and temp dir. Returned once the replica is in sync and every sentinel has
 * discovered it (SENTINEL FAILOVER needs a known, healthy replica).
 */
export async function startRedisSentinel(
  options: RedisSentinelOptions = {},
): Promise<RedisSentinelDeployment> {
  const masterName = options.masterName ?? 'fuego';
  const sentinelCount = options.sentinelCount ?? 1;
  const dir = await mkdtemp(join(tmpdir(), 'fuego-pool-redis-sentinel-'));
  const dataNodes: RedisProcess[] = [];
  const sentinelProcesses: RedisProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(sentinelProcesses.map((p) => p.stop()));
    await Promise.all(dataNodes.map((p) => p.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await startDataNodes(dir, options.appendOnly ?? false, dataNodes);
    const [master, replica] = dataNodes as [RedisProcess, RedisProcess];
    for (let i = 0; i < sentinelCount; i++) {
      sentinelProcesses.push(await startSentinel(join(dir, `sentinel-${i}`), masterName, master.port));
    }
    await until(
      async () => {
        const replies = await Promise.all(
          sentinelProcesses.map((s) => rawRedisCommand(s.port, `SENTINEL replicas ${masterName}`, 1_000)),
        );
        return replies.every(
          (reply) => reply.includes(String(replica.port)) && !reply.includes('disconnected'),
        );
      },
      REPLICA_SYNC_DEADLINE_MS,
      'sentinels know the replica',
    );
    const sentinelPort = sentinelProcesses[0]!.port;
    return {
      masterName,
      sentinels: sentinelProcesses.map((s) => ({ host: '127.0.0.1', port: s.port })),
      dataNodes,
      sentinelProcesses,
      dir,
      masterPort: () => namedMasterPort(sentinelPort, masterName),
      failover: () => failover(sentinelPort, masterName),
      waitForReplica,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A master and its replica under `dir`, pushed to `nodes` as they start; returns once the replica is in sync. */
async function startDataNodes(dir: string, appendOnly: boolean, nodes: RedisProcess[]): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const nodeDir = join(dir, `data-${i}`);
    await mkdir(nodeDir);
    const args = dataNodeArgs(port, nodeDir, appendOnly);
    if (i === 1) args.push('--replicaof', '127.0.0.1', String(nodes[0]!.port));
    nodes.push(await spawnRedisProcess(port, args));
  }
  await until(
    async () => (await infoField(nodes[1]!.port, 'replication', 'master_link_status')) === 'up',
    REPLICA_SYNC_DEADLINE_MS,
    'replica in sync',
  );
}

async function startSentinel(dir: string, masterName: string, masterPort: number): Promise<RedisProcess> {
  const port = await freePort();
  await mkdir(dir);
  const configFile = join(dir, 'sentinel.conf');
  // Sentinel rewrites its config file, so each gets its own writable copy.
  await writeFile(
    configFile,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${masterName} 1000`,
      `sentinel failover-timeout ${masterName} 10000`,
      `sentinel parallel-syncs ${masterName} 1`,
      '',
    ].join('\n'),
  );
  return spawnRedisProcess(port, [configFile, '--sentinel']);
}

async function namedMasterPort(sentinelPort: number, masterName: string): Promise<number> {
  const port = await sentinelMasterPort(sentinelPort, masterName);
  if (port === null) throw new RedisDeploymentError('REDIS_SETUP_FAILED', 'the sentinel names no master');
  return port;
}

/** See RedisSentinelDeployment.failover. */
async function failover(sentinelPort: number, masterName: string): Promise<number> {
  const before = await namedMasterPort(sentinelPort, masterName);
  const reply = await rawRedisCommand(sentinelPort, `SENTINEL FAILOVER ${masterName}`);
  if (!reply.startsWith('+OK')) {
    throw new RedisDeploymentError('REDIS_SETUP_FAILED', `SENTINEL FAILOVER refused: ${reply.trim()}`);
  }
  let after = before;
  await until(
    async () => {
      after = (await sentinelMasterPort(sentinelPort, masterName)) ?? before;
      if (after === before) return false;
      return (await infoField(after, 'replication', 'role')) === 'master';
    },
    FAILOVER_DEADLINE_MS,
    'promotion of the replica',
  );
  return after;
}

/** See RedisSentinelDeployment.waitForReplica. */
async function waitForReplica(port: number): Promise<void> {
  await until(
    async () =>
      (await infoField(port, 'replication', 'role')) === 'slave' &&
      (await infoField(port, 'replication', 'master_link_status')) === 'up',
    FAILOVER_DEADLINE_MS,
    `node ${port} replicating`,
  );
}
