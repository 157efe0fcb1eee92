import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createPaymentKeys } from '../../../../src/store/payments/payment-keys.js';
import { UnlockerStore } from '../../../../src/store/payments/unlocker-store.js';
import { useTestRedisClient } from '../../../helpers/redis-server.js';
import { uniquePrefix } from '../../store-fixtures.js';

const HOUR_MS = 3_600_000;
const T0 = 1_800_000_000_000;

/** claim_reorg_audit: when the leader's reorg audit is due, kept in Redis and fenced. */
describe('claim_reorg_audit', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  function setup(label: string) {
    const keyPrefix = uniquePrefix(label);
    const store = new UnlockerStore({ keyPrefix }, { redis });
    const keys = createPaymentKeys(keyPrefix);
    const claim = (nowMs: number, fencingToken?: string) =>
      store.claimReorgAudit({ nowMs, intervalMs: HOUR_MS, ...(fencingToken ? { fencingToken } : {}) });
    return { keys, claim };
  }

  it('is due the first time, then once per interval, and keeps when the last began', async () => {
    const { keys, claim } = setup('claim-audit');
    expect(await claim(T0)).toBe(true);
    expect(await redis.get(keys.reorgAuditLastRun)).toBe(String(T0));
    expect(await claim(T0 + HOUR_MS - 1)).toBe(false);
    expect(await redis.get(keys.reorgAuditLastRun)).toBe(String(T0));
    expect(await claim(T0 + HOUR_MS)).toBe(true);
    expect(await redis.get(keys.reorgAuditLastRun)).toBe(String(T0 + HOUR_MS));
  });

  it('is due when the kept time is not a number, or more than an interval ahead (a clock set back)', async () => {
    const { keys, claim } = setup('claim-audit-odd');
    await redis.set(keys.reorgAuditLastRun, 'garbage');
    expect(await claim(T0)).toBe(true);
    await redis.set(keys.reorgAuditLastRun, String(T0 + HOUR_MS));
    expect(await claim(T0)).toBe(false);
    await redis.set(keys.reorgAuditLastRun, String(T0 + HOUR_MS + 1));
    expect(await claim(T0)).toBe(true);
    expect(await redis.get(keys.reorgAuditLastRun)).toBe(String(T0));
  });

  it('refuses a stale leader (FENCED) and leaves the time as it was', async () => {
    const { keys, claim } = setup('claim-audit-fenced');
    await redis.set(keys.leaderToken, 'leader-2');
    await expect(claim(T0, 'leader-1')).rejects.toMatchObject({ code: 'FENCED' });
    expect(await redis.exists(keys.reorgAuditLastRun)).toBe(0);
    expect(await claim(T0, 'leader-2')).toBe(true);
  });
});
