import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { guaranteeOf, RedisDurability } from '../../src/store/redis-durability.js';
import { useTestRedisClient } from '../helpers/redis-server.js';

const settings = (overrides: Partial<Parameters<typeof guaranteeOf>[0]> = {}) => ({
  aofEnabled: false,
  appendFsync: 'everysec',
  rdbSavePoints: false,
  version: [7, 0] as const,
  ...overrides,
});

describe('what a Redis guarantees for a payout write', () => {
  it('needs the AOF fsynced before each reply, or WAITAOF on 7.2+', () => {
    expect(guaranteeOf(settings({ aofEnabled: true, appendFsync: 'always' }))).toEqual({
      kind: 'aof-always',
    });
    expect(guaranteeOf(settings({ aofEnabled: true, version: [7, 2] }))).toEqual({ kind: 'aof-waitaof' });
    expect(guaranteeOf(settings({ aofEnabled: true, version: [8, 0] }))).toEqual({ kind: 'aof-waitaof' });
    expect(guaranteeOf(settings({ aofEnabled: true }))).toMatchObject({ kind: 'none', persistence: 'aof' });
    expect(guaranteeOf(settings({ rdbSavePoints: true }))).toMatchObject({
      kind: 'none',
      persistence: 'rdb',
    });
    expect(guaranteeOf(settings())).toMatchObject({ kind: 'none', persistence: 'none' });
    expect(guaranteeOf(settings({ rdbSavePoints: null }))).toMatchObject({
      kind: 'none',
      persistence: 'unknown',
    });
  });
});

describe('RedisDurability on a real Redis', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  const barrier = (replicas = 0) =>
    new RedisDurability({ replicas, timeoutMs: 200, anchorKey: '{durability}:anchor' }, { redis });

  it('a Redis without persistence: no guarantee, and ensureDurable refuses with NOT_DURABLE', async () => {
    await redis.config('SET', 'appendonly', 'no');
    await redis.config('SET', 'save', '');
    expect(await barrier().describe()).toMatchObject({ kind: 'none', persistence: 'none' });
    await expect(barrier().ensureDurable()).rejects.toMatchObject({ code: 'NOT_DURABLE' });
  });

  it('RDB snapshots or an AOF fsynced every second (Redis < 7.2) are not enough', async () => {
    await redis.config('SET', 'save', '3600 1');
    expect(await barrier().describe()).toMatchObject({ kind: 'none', persistence: 'rdb' });
    await redis.config('SET', 'appendonly', 'yes');
    await redis.config('SET', 'appendfsync', 'everysec');
    const guarantee = await barrier().describe();
    const version = /^redis_version:(\d+)\.(\d+)/m.exec(await redis.info('server'))!;
    const hasWaitAof = Number(version[1]) > 7 || (Number(version[1]) === 7 && Number(version[2]) >= 2);
    if (hasWaitAof) {
      expect(guarantee).toEqual({ kind: 'aof-waitaof' });
      await barrier().ensureDurable();
    } else {
      expect(guarantee).toMatchObject({ kind: 'none', persistence: 'aof' });
    }
  });

  it('an AOF fsynced before every reply is durable at once', async () => {
    await redis.config('SET', 'appendonly', 'yes');
    await redis.config('SET', 'appendfsync', 'always');
    const guarantee = await barrier().describe();
    expect(['aof-always', 'aof-waitaof']).toContain(guarantee.kind);
    await barrier().ensureDurable();
  });

  it('required replicas that are not there: WAIT times out and the write is not durable', async () => {
    expect(await barrier(1).describe()).toEqual({ kind: 'replicas', replicas: 1 });
    await redis.set('{durability}:anchor', '1');
    await expect(barrier(1).ensureDurable()).rejects.toMatchObject({ code: 'NOT_DURABLE' });
  });
});
