import { describe, expect, it } from 'vitest';
import { redisConnectionOptions, replicaAcksOf } from '../../src/app/redis-connection.js';
import { parseConfig } from '../../src/config/load-config.js';

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
