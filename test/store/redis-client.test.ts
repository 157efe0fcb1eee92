import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, redactRedisUrl } from '../../src/store/redis-client.js';
import type { StoreError } from '../../src/store/store-error.js';
import { freePort, startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { silentLogger } from './store-fixtures.js';

describe('createRedisClient', () => {
  let server: TestRedis;

  beforeAll(async () => {
    server = await startTestRedis();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('connects and answers', async () => {
    const client = await createRedisClient({ url: server.url }, silentLogger);
    try {
      expect(await client.ping()).toBe('PONG');
      expect(client.options.enableOfflineQueue).toBe(false);
      expect(client.options.maxRetriesPerRequest).toBe(0);
    } finally {
      client.disconnect();
    }
  });

  it('fails fast with STORE_CONNECT_FAILED naming the URL (password redacted)', async () => {
    const port = await freePort();
    const url = `redis://:hunter2@127.0.0.1:${port}`;
    const error = (await createRedisClient({ url }, silentLogger).catch(
      (caught: unknown) => caught,
    )) as StoreError;
    expect(error.code).toBe('STORE_CONNECT_FAILED');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.data['reason']).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('hunter2');
    expect(error.data['url']).toBe(`redis://:***@127.0.0.1:${port}`);
  });

  it('redacts passwords and survives unparsable URLs', () => {
    expect(redactRedisUrl('redis://user:secret@host:6379/2')).toBe('redis://user:***@host:6379/2');
    expect(redactRedisUrl('redis://host:6379')).toBe('redis://host:6379');
    expect(redactRedisUrl('not a url')).toBe('<unparsable redis url>');
  });

  // The client also takes the password as a query parameter (redis://host:6379/0?password=...).
  it('redacts a password given in the query string too', () => {
    expect(redactRedisUrl('redis://host:6379/0?password=secret&db=2')).toBe(
      'redis://host:6379/0?password=***&db=2',
    );
    expect(redactRedisUrl('redis://host:6379/0?sentinelPassword=secret')).not.toContain('secret');
  });
});
