import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { healthSchema } from '../../../src/servers/api/api-schemas.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, FakeDaemon } from './api-fixtures.js';

const T = 1_800_000_000_000;
const DAY_MS = 86_400_000;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("/health's daemon and wallet ages when the wall clock steps", () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('are the time that passed (monotonic clock): a step forward fails nothing, a step back hides no outage', async () => {
    let wallMs = T;
    let elapsedMs = 5_000;
    vi.spyOn(performance, 'now').mockImplementation(() => elapsedMs);
    const daemon = new FakeDaemon();
    const { app } = await buildTestApi({
      redis,
      keyPrefix: 'health-clock',
      daemon,
      clock: () => wallMs,
      modules: { walletProbe: async () => {} },
    });
    const health = async () => healthSchema.parse((await app.inject({ url: '/health' })).json());
    try {
      await app.ready(); // its first poll now, not at the first request
      await app.pool.network.refresh();
      await app.pool.health.probeWallet();
      // NTP steps the clock forward a day; a second passes.
      wallMs += DAY_MS;
      elapsedMs += 1_000;
      const stepped = await health();
      expect(stepped.status).toBe('ok');
      expect(stepped.checks.daemon).toMatchObject({ status: 'ok', ageMs: 1_000 });
      expect(stepped.checks.wallet).toMatchObject({ status: 'ok', ageMs: 1_000 });
      // The daemon stops answering; the clock is stepped back two days; two minutes pass.
      daemon.failInfo = true;
      wallMs -= 2 * DAY_MS;
      elapsedMs += 120_000;
      await app.pool.network.refresh();
      const down = await health();
      expect(down.status).toBe('failing');
      expect(down.checks.daemon).toMatchObject({
        status: 'failing',
        detail: 'RPC_UNREACHABLE',
        ageMs: 121_000,
      });
      expect(down.checks.wallet).toMatchObject({ ageMs: 121_000 });
      expect(down.timestampMs).toBe(wallMs);
    } finally {
      await app.close();
    }
  });
});
