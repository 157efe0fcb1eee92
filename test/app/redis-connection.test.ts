import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, redisConnectionOptions, replicaAcksOf } from '../../src/app/redis-connection.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log/logger.js';
import { describeRedisDeployment, redactRedisUrl } from '../../src/store/redis-client.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

describe('redis connection from config', () => {
  it('puts the password from the environment into a standalone URL, never from the file', () => {
    const { redis } = parseConfig({ redis: { url: 'redis://127.0.0.1:6380/2' } });
    expect(redisConnectionOptions(redis, { FUEGO_POOL_REDIS_PASSWORD: 's3cret' })).toEqual({
      url: 'redis://:s3cret@127.0.0.1:6380/2',
    });
  });

  it('waits for one replica per share batch behind Sentinel unless told otherwise', () => {
    const sentinel = parseConfig({
      redis: { mode: 'sentinel', sentinels: [{ host: '127.0.0.1', port: 26379 }], masterName: 'fuego' },
    }).redis;
    expect(redisConnectionOptions(sentinel, {})).toMatchObject({ mode: 'sentinel', masterName: 'fuego' });
    expect(replicaAcksOf(sentinel)).toEqual({ replicas: 1, timeoutMs: 1000 });
    expect(replicaAcksOf({ ...sentinel, replicaAcks: 0 })).toBeUndefined();
    expect(replicaAcksOf(parseConfig({}).redis)).toBeUndefined();
  });
});

/**
 * Redis on a Unix socket only (no TCP for other local users to reach) is a common hardening, and
 * the client takes a socket path as its URL. The config must accept one, put the password from
 * the environment into the client's options (a path has no place for it), and never print it.
 */
describe('redis on a Unix socket', () => {
  let server: TestRedis | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('takes an absolute socket path as redis.url and connects through it', async () => {
    server = await startTestRedis({ unixSocket: true });
    const socketPath = server.socketPath!;
    const { redis } = parseConfig({ redis: { url: socketPath } });
    expect(redis.url).toBe(socketPath);
    const client = await connectRedis(redis, {}, createLogger({ level: 'silent' }));
    try {
      expect(await client.ping()).toBe('PONG');
      expect(client.options.path).toBe(socketPath);
    } finally {
      client.disconnect();
    }
    expect(parseConfig({ redis: { url: `${socketPath}?db=2` } }).redis.url).toBe(`${socketPath}?db=2`);
  });

  it('gives the password from the environment as an option, and logs the path without it', () => {
    const { redis } = parseConfig({ redis: { url: '/run/redis/redis.sock' } });
    const options = redisConnectionOptions(redis, { FUEGO_POOL_REDIS_PASSWORD: 's3cret' });
    expect(options).toEqual({ url: '/run/redis/redis.sock', password: 's3cret' });
    expect(describeRedisDeployment(options)).toBe('/run/redis/redis.sock');
    expect(redactRedisUrl('/run/redis/redis.sock?db=1&password=s3cret')).toBe(
      '/run/redis/redis.sock?db=1&password=***',
    );
  });

  it('still refuses a relative path or a bare host:port', () => {
    for (const url of ['redis.sock', 'run/redis.sock', '127.0.0.1:6379']) {
      expect(() => parseConfig({ redis: { url } })).toThrow(/redis\.url/);
    }
  });
});
