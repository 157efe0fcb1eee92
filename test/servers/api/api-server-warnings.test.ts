import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi } from './api-fixtures.js';

/*
 * Node prints a process warning to stderr, outside the JSON log, on every start: an operator
 * reads it as a fault. A test file of its own, because fastify warns once per process.
 */
describe('the API server at start', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('builds and starts without a Node process warning (no deprecated fastify option)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const { app } = await buildTestApi({ redis, keyPrefix: 'api-warnings' });
    try {
      await app.ready();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await app.close();
    }
  });
});
