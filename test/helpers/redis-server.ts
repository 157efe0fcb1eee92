import type { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { freePort, type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';

/** Tests start their own Redis on a free port with a temp dir (src/tools/redis-server.ts). */
export type TestRedis = PrivateRedis;

export { freePort };

export function startTestRedis(
  options: { appendOnly?: boolean; unixSocket?: boolean } = {},
): Promise<TestRedis> {
  return startPrivateRedis(options);
}

/**
 * For a describe block that needs one Redis: starts a private Redis and a client to it before the
 * block's tests (handing the client to `onReady`), and disconnects and stops both after them.
 */
export function useTestRedisClient(onReady: (redis: Redis, server: TestRedis) => void): void {
  let server: TestRedis | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startTestRedis();
    redis = await createRedisClient({ url: server.url }, createLogger({ level: 'silent' }));
    onReady(redis, server);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
}
