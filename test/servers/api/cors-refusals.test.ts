import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi } from './api-fixtures.js';

const ORIGIN = 'https://dashboard.example';
const BURST = 3;

/**
 * A dashboard served from another origin (api.corsOrigins) reads the API with fetch(): a reply
 * without Access-Control-Allow-Origin is an opaque network error to it, so a refusal must carry
 * the CORS headers too, or the page cannot tell "slow down" from "the pool is down".
 */
describe('CORS on refusals', () => {
  let redis: Redis;
  let app: FastifyInstance;
  useTestRedisClient((client) => {
    redis = client;
  });
  beforeAll(async () => {
    ({ app } = await buildTestApi({
      redis,
      keyPrefix: 'cors-refusals',
      options: {
        corsOrigins: [ORIGIN],
        rateLimit: { burst: BURST, requestsPerMinute: 1, exemptIps: [], refusalDelayMs: 0 },
      },
    }));
  });
  afterAll(() => app?.close());

  const get = (remoteAddress: string) =>
    app.inject({ url: '/api/stats', remoteAddress, headers: { origin: ORIGIN } });

  it('a 429 RATE_LIMITED carries Access-Control-Allow-Origin and exposes Retry-After', async () => {
    for (let i = 0; i < BURST; i++) {
      const served = await get('198.51.100.20');
      expect(served.statusCode).toBe(200);
      expect(served.headers['access-control-allow-origin']).toBe(ORIGIN);
    }
    const refused = await get('198.51.100.20');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(refused.headers['retry-after']).toBe('1');
    expect(String(refused.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after');
  });

  it('preflights still take a token: past the budget they are refused 429, with the CORS headers', async () => {
    const preflight = () =>
      app.inject({
        method: 'OPTIONS',
        url: '/api/miners/x/threshold',
        remoteAddress: '198.51.100.21',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    for (let i = 0; i < BURST; i++) {
      const answered = await preflight();
      expect(answered.statusCode).toBeLessThan(300);
      expect(answered.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(answered.headers['access-control-allow-methods']).toContain('POST');
    }
    const refused = await preflight();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
  });
});
