import type { Redis } from 'ioredis';
import type { PoolConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { createRedisClient, type RedisConnectionOptions } from '../store/redis-client.js';

/** Secrets never live in the config file: these variables carry them. */
export const REDIS_PASSWORD_ENV = 'FUEGO_POOL_REDIS_PASSWORD';
export const REDIS_SENTINEL_PASSWORD_ENV = 'FUEGO_POOL_REDIS_SENTINEL_PASSWORD';

type Env = Readonly<Record<string, string | undefined>>;

/** The `redis` config section (and the environment's passwords) as client options. */
export function redisConnectionOptions(config: PoolConfig['redis'], env: Env): RedisConnectionOptions {
  const timeouts = {
    ...(config.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: config.commandTimeoutMs }),
    ...(config.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: config.connectTimeoutMs }),
  };
  const password = env[REDIS_PASSWORD_ENV] ? { password: env[REDIS_PASSWORD_ENV] } : {};
  switch (config.mode) {
    case 'standalone': {
      if (!env[REDIS_PASSWORD_ENV]) return { url: config.url, ...timeouts };
      // A socket path has no place for a password: the client takes it as an option.
      if (config.url.startsWith('/')) return { url: config.url, ...password, ...timeouts };
      const url = new URL(config.url);
      url.password = env[REDIS_PASSWORD_ENV];
      return { url: url.toString(), ...timeouts };
    }
    case 'sentinel':
      return {
        mode: 'sentinel',
        sentinels: config.sentinels,
        masterName: config.masterName ?? '',
        ...password,
        ...(env[REDIS_SENTINEL_PASSWORD_ENV] ? { sentinelPassword: env[REDIS_SENTINEL_PASSWORD_ENV] } : {}),
        ...timeouts,
      };
    case 'cluster':
      return { mode: 'cluster', nodes: config.nodes, ...password, ...timeouts };
  }
}

/**
 * Connects as the config says. The store modules are typed for `Redis`; a Cluster connection
 * serves every call they make (one hash slot per pool; checked on a real cluster in
 * test/cluster/redis-deployments.test.ts), so it is handed to them as such, here only.
 */
export async function connectRedis(config: PoolConfig['redis'], env: Env, logger: Logger): Promise<Redis> {
  const connection = await createRedisClient(redisConnectionOptions(config, env), logger);
  return connection as Redis;
}

/** The connection connectRedis gives: what the commands above the app layer hold (they never import ioredis). */
export type PoolRedis = Redis;

/** Runs an operator command's work on a connection to the config's Redis, closed after it. */
export async function withRedis<T>(
  config: PoolConfig['redis'],
  env: Env,
  logger: Logger,
  work: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = await connectRedis(config, env, logger);
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

/** Replica acknowledgements per share batch: the configured number, else 1 behind Sentinel. */
export function replicaAcksOf(
  config: PoolConfig['redis'],
): { readonly replicas: number; readonly timeoutMs: number } | undefined {
  const replicas = config.replicaAcks ?? (config.mode === 'sentinel' ? 1 : 0);
  return replicas > 0 ? { replicas, timeoutMs: config.replicaAckTimeoutMs } : undefined;
}
