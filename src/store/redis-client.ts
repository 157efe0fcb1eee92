import { Redis, type RedisOptions } from 'ioredis';
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

export interface RedisClientOptions {
  readonly url: string;
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
}

/** The URL with any password replaced, for logs and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparsable redis url>';
  }
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
function clientOptions(options: RedisClientOptions): RedisOptions {
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
    retryStrategy: (attempt: number) =>
      Math.min(RECONNECT_FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 16), RECONNECT_MAX_DELAY_MS),
  };
}

/** One warning per outage (not one per reconnect attempt), and one line when it ends. */
function logConnectionEvents(client: Redis, logger: Logger, safeUrl: string): void {
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

/**
 * A connected standalone ioredis client for `url` (redis://[:password@]host:port[/db]).
 * Sentinel or Cluster plug in here: build `new Redis({ sentinels, name, ...clientOptions })` or
 * `new Cluster(nodes, { redisOptions: clientOptions })` from config instead of the URL; the store
 * needs nothing else since every key of a pool shares one hash tag.
 */
export async function createRedisClient(options: RedisClientOptions, logger: Logger): Promise<Redis> {
  const safeUrl = redactRedisUrl(options.url);
  let client: Redis;
  try {
    client = new Redis(options.url, clientOptions(options));
  } catch (error) {
    throw new StoreError(
      'STORE_CONNECT_FAILED',
      `invalid Redis URL ${safeUrl}`,
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
  logger.info({ url: safeUrl, redisMajorVersion: major }, 'redis connected');
  return client;
}
