import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { StoreError } from './store-error.js';

/** A command (incl. a share batch) not answered within this is rejected: the miner hears an error. */
const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Reconnect backoff: 50 ms doubling, capped, forever (a pool outlives Redis restarts). */
const RECONNECT_FIRST_DELAY_MS = 50;
const RECONNECT_MAX_DELAY_MS = 2_000;
/** Streams (5.0) are the oldest feature the store needs. */
const MIN_REDIS_MAJOR = 5;

/** Timeouts shared by every deployment mode. */
interface RedisTimeouts {
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
}

/** Standalone Redis by URL, or by Unix socket path (the original form; `mode` may be omitted). */
export interface RedisClientOptions extends RedisTimeouts {
  readonly mode?: 'standalone';
  readonly url: string;
  /** For a socket path (a URL carries its own). */
  readonly password?: string;
}

export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
}

/** Redis behind Sentinel: the client asks the sentinels where the master of `masterName` is. */
export interface RedisSentinelOptions extends RedisTimeouts {
  readonly mode: 'sentinel';
  readonly sentinels: readonly RedisEndpoint[];
  readonly masterName: string;
  /** Data nodes' credentials (sentinel and data nodes may differ). */
  readonly username?: string;
  readonly password?: string;
  readonly sentinelUsername?: string;
  readonly sentinelPassword?: string;
  readonly db?: number;
}

/** Redis Cluster: any reachable subset of nodes; the client learns the slot map from them. */
export interface RedisClusterOptions extends RedisTimeouts {
  readonly mode: 'cluster';
  readonly nodes: readonly RedisEndpoint[];
  readonly username?: string;
  readonly password?: string;
}

export type RedisConnectionOptions = RedisClientOptions | RedisSentinelOptions | RedisClusterOptions;

/**
 * What the store modules talk to. Every call they make (call, defineCommand + EVALSHA, pipeline,
 * hgetall, xrevrange, ...) type-checks on this union, and at run time every key of a pool lives in
 * one hash slot, so a Cluster behaves like one node for the store.
 */
export type RedisConnection = Redis | Cluster;

/**
 * The URL with any password replaced, for logs and error messages: the one before the host and
 * any query parameter naming one (the client takes `?password=` too).
 */
export function redactRedisUrl(url: string): string {
  if (url.startsWith('/')) return redactSocketPath(url);
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    maskPasswordParams(parsed.searchParams);
    return parsed.toString();
  } catch {
    return '<unparsable redis url>';
  }
}

/** A Unix socket path with its query (`?db=1`), any parameter naming a password replaced. */
function redactSocketPath(path: string): string {
  const query = path.indexOf('?');
  if (query === -1) return path;
  const params = new URLSearchParams(path.slice(query + 1));
  maskPasswordParams(params);
  return `${path.slice(0, query)}?${params.toString()}`;
}

/** Replaces the value of every query parameter whose name holds "password". */
function maskPasswordParams(params: URLSearchParams): void {
  for (const key of [...params.keys()]) if (/password/i.test(key)) params.set(key, '***');
}

/**
 * Settings chosen so that a failure is an error, never a silent retry of a write:
 * - enableOfflineQueue false: a command sent while disconnected fails at once (STORE_UNAVAILABLE)
 *   instead of piling up in memory;
 * - maxRetriesPerRequest 0 + autoResendUnfulfilledCommands false: commands in flight when the
 *   connection drops are rejected, not re-sent after reconnect (a re-sent share batch that had
 *   already been applied would be credited twice);
 * - commandTimeout: a hung Redis rejects instead of holding miners' answers forever.
 */
function clientOptions(options: RedisTimeouts): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableReadyCheck: true,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    keepAlive: 10_000,
    connectionName: 'fuego-pool',
    retryStrategy: reconnectDelayMs,
  };
}

/** Reconnect delay for attempt n (1-based): 50 ms doubling up to 2 s, never giving up. */
function reconnectDelayMs(attempt: number): number {
  return Math.min(
    RECONNECT_FIRST_DELAY_MS * 2 ** Math.min(Math.max(attempt, 1) - 1, 16),
    RECONNECT_MAX_DELAY_MS,
  );
}

/**
 * After a Sentinel failover the old master may still hold our connection as a replica: every write
 * fails with READONLY. Returning 1 makes ioredis reconnect (and ask the sentinels again) without
 * re-sending the refused command: the write was refused, so the caller already heard an error.
 */
function reconnectOnReadOnly(error: Error): 1 | false {
  return error.message.startsWith('READONLY') ? 1 : false;
}

/** Sentinel: same safety settings; the master is found through the sentinels on every connect. */
function sentinelClientOptions(options: RedisSentinelOptions): RedisOptions {
  return {
    ...clientOptions(options),
    sentinels: options.sentinels.map(({ host, port }) => ({ host, port })),
    name: options.masterName,
    role: 'master',
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.sentinelUsername !== undefined ? { sentinelUsername: options.sentinelUsername } : {}),
    ...(options.sentinelPassword !== undefined ? { sentinelPassword: options.sentinelPassword } : {}),
    ...(options.db !== undefined ? { db: options.db } : {}),
    sentinelCommandTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    sentinelRetryStrategy: reconnectDelayMs,
    // Subscribes to +switch-master, so a failover is noticed at once instead of at the next error.
    failoverDetector: true,
    reconnectOnError: reconnectOnReadOnly,
  };
}

/**
 * Cluster: the per-node connections get the standalone settings, and the cluster layer must not
 * re-send either. ioredis re-sends a command whose node connection closed after
 * `retryDelayOnFailover` (default 100 ms); for a share batch that Redis had already applied that
 * would credit it twice, so it is 0 here. Re-sends after MOVED, ASK, TRYAGAIN and CLUSTERDOWN stay
 * on: those replies mean the command was not executed.
 */
function clusterClientOptions(options: RedisClusterOptions): ClusterOptions {
  const { retryStrategy: _nodeRetry, ...nodeOptions } = clientOptions(options);
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    clusterRetryStrategy: reconnectDelayMs,
    redisOptions: {
      ...nodeOptions,
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
    },
  };
}

/** One warning per outage (not one per reconnect attempt), and one line when it ends. */
function logConnectionEvents(client: RedisConnection, logger: Logger, safeUrl: string): void {
  let outageStartedMs: number | null = null;
  let errorsDuringOutage = 0;
  client.on('error', (error: Error) => {
    if (outageStartedMs === null) {
      outageStartedMs = Date.now();
      errorsDuringOutage = 0;
      logger.warn({ url: safeUrl, err: error }, 'redis connection error; reconnecting');
    } else {
      errorsDuringOutage += 1;
    }
  });
  client.on('close', () => {
    outageStartedMs ??= Date.now();
  });
  client.on('ready', () => {
    if (outageStartedMs !== null) {
      logger.info(
        { url: safeUrl, outageMs: Date.now() - outageStartedMs, errorsDuringOutage },
        'redis connection restored',
      );
    }
    outageStartedMs = null;
  });
}

function parseMajorVersion(info: string): number | null {
  const match = /^redis_version:(\d+)\./m.exec(info);
  return match === null ? null : Number(match[1]);
}

/** Where the client connects, for logs: never a password. */
export function describeRedisDeployment(options: RedisConnectionOptions): string {
  const list = (endpoints: readonly RedisEndpoint[]) => endpoints.map((e) => `${e.host}:${e.port}`).join(',');
  switch (options.mode) {
    case 'sentinel':
      return `redis-sentinel://${list(options.sentinels)}/${options.masterName}`;
    case 'cluster':
      return `redis-cluster://${list(options.nodes)}`;
    default:
      return redactRedisUrl(options.url);
  }
}

function buildClient(options: RedisConnectionOptions): RedisConnection {
  switch (options.mode) {
    case 'sentinel':
      if (options.sentinels.length === 0) throw new RangeError('sentinel mode needs at least one sentinel');
      return new Redis(sentinelClientOptions(options));
    case 'cluster':
      if (options.nodes.length === 0) throw new RangeError('cluster mode needs at least one node');
      return new Cluster(
        options.nodes.map(({ host, port }) => ({ host, port })),
        clusterClientOptions(options),
      );
    default:
      return new Redis(options.url, {
        ...clientOptions(options),
        ...(options.password === undefined ? {} : { password: options.password }),
      });
  }
}

/**
 * A connected ioredis client for a standalone Redis (by URL), a Sentinel-managed master or a
 * Cluster, with the same safety settings in every mode: no offline queue, no re-send of a command
 * that may have been applied, a command timeout, reconnect forever. The URL form returns `Redis`
 * (existing callers); `mode: 'sentinel' | 'cluster'` returns the RedisConnection union.
 */
export async function createRedisClient(options: RedisClientOptions, logger: Logger): Promise<Redis>;
export async function createRedisClient(
  options: RedisConnectionOptions,
  logger: Logger,
): Promise<RedisConnection>;
export async function createRedisClient(
  options: RedisConnectionOptions,
  logger: Logger,
): Promise<RedisConnection> {
  const safeUrl = describeRedisDeployment(options);
  let client: RedisConnection;
  try {
    client = buildClient(options);
  } catch (error) {
    throw new StoreError(
      'STORE_CONNECT_FAILED',
      `invalid Redis settings for ${safeUrl}`,
      { url: safeUrl },
      { cause: error },
    );
  }
  logConnectionEvents(client, logger, safeUrl);
  // connect() itself only says "Connection is closed."; the socket error says why.
  let lastError: Error | null = null;
  const remember = (error: Error): void => {
    lastError = error;
  };
  client.on('error', remember);
  client.on('node error', remember);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const cause = lastError ?? error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new StoreError(
      'STORE_CONNECT_FAILED',
      `cannot connect to Redis at ${safeUrl}: ${reason}`,
      { url: safeUrl, reason },
      { cause },
    );
  } finally {
    client.off('error', remember);
    client.off('node error', remember);
  }
  let major: number | null;
  try {
    major = parseMajorVersion(await client.info('server'));
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError(
      'STORE_CONNECT_FAILED',
      `Redis at ${safeUrl} did not answer INFO: ${reason}`,
      { url: safeUrl, reason },
      { cause: error },
    );
  }
  if (major === null || major < MIN_REDIS_MAJOR) {
    client.disconnect();
    throw new StoreError('UNSUPPORTED_REDIS', `Redis at ${safeUrl} is older than ${MIN_REDIS_MAJOR}.0`, {
      url: safeUrl,
      major,
    });
  }
  logger.info(
    { url: safeUrl, mode: options.mode ?? 'standalone', redisMajorVersion: major },
    'redis connected',
  );
  return client;
}
