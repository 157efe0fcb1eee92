import { freePort, type PrivateRedis, startPrivateRedis } from '../../src/tools/redis-server.js';

/** Tests start their own Redis on a free port with a temp dir (src/tools/redis-server.ts). */
export type TestRedis = PrivateRedis;

export { freePort };

export function startTestRedis(options: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  return startPrivateRedis(options);
}
