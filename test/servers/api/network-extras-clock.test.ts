import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { poolStatsSchema } from '../../../src/servers/api/api-schemas.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi, FakeDaemon } from './api-fixtures.js';

const T = 1_800_000_000_000;
const HOUR_MS = 3_600_000;
const EXTRAS_REFRESH_MS = 60_000;

function feePool(balance: number) {
  return {
    fee_pool_balance: balance,
    current_epoch_swap_fees: 0,
    total_cd_locked: 0,
    current_epoch_number: 1,
    status: 'OK',
  };
}

describe("the network's fee pool and deposits after the wall clock is set back", () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('are polled again within api.networkExtrasRefreshMs, not only once the clock is back where it was', async () => {
    let now = T;
    const daemon = new FakeDaemon();
    daemon.feePool = feePool(5);
    daemon.deposits = [];
    const { app } = await buildTestApi({
      redis,
      keyPrefix: 'network-extras-clock',
      daemon,
      clock: () => now,
      options: { networkExtrasRefreshMs: EXTRAS_REFRESH_MS },
    });
    const balance = async () => {
      const stats = poolStatsSchema.parse((await app.inject({ url: '/api/stats' })).json());
      const pool = stats.network?.feePool;
      return pool?.status === 'ok' ? pool.balanceAtomic : null;
    };
    try {
      await app.pool.network.refresh();
      expect(await balance()).toBe('5');
      daemon.feePool = feePool(9);
      // NTP steps the clock back an hour; the poller goes on every networkRefreshMs.
      now = T - HOUR_MS;
      await app.pool.network.refresh();
      now += EXTRAS_REFRESH_MS + 1_000;
      await app.pool.network.refresh();
      expect(await balance()).toBe('9');
    } finally {
      await app.close();
    }
  });
});
