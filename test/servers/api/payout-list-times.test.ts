import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { classicZsetSchema, paymentsPageSchema } from '../../../src/servers/api/api-schemas.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { buildTestApi } from './api-fixtures.js';

const NOW = 1_800_000_000_000;
const HOUR_MS = 3_600_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * Two payouts: `old` sent two hours ago, `recent` one hour ago. The confirmation of `old`
 * (confirm_sent, once its transaction is deep) happens now and stamps the batch's updatedAtMs
 * with the confirmation time; the payout's time is still when it was sent.
 */
const OLD = { id: 'old', sentAtMs: NOW - 2 * HOUR_MS, txHash: 'a1'.repeat(32) };
const RECENT = { id: 'recent', sentAtMs: NOW - HOUR_MS, txHash: 'b2'.repeat(32) };

describe('the public payout list shows when a payout was sent, also after its confirmation', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  async function seedAndConfirmOld(keyPrefix: string): Promise<void> {
    await seedPayoutBatches(
      redis,
      keyPrefix,
      [OLD, RECENT].map((batch) => ({
        id: batch.id,
        state: 'sent' as const,
        createdAtMs: batch.sentAtMs - 1_000,
        updatedAtMs: batch.sentAtMs,
        resolvedAtMs: batch.sentAtMs,
        txHash: batch.txHash,
      })),
    );
    const payouts = new PayoutStore({ keyPrefix }, { redis, clock: () => NOW });
    const writer = { fencingToken: '', lockToken: 'test-lock' };
    expect(await payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
    await payouts.confirmSent(writer, OLD.id, 12_345);
    await payouts.releaseLock(writer.lockToken);
  }

  it('/api/payments: each row at its send time, newest first', async () => {
    const keyPrefix = 'payout-times-native';
    await seedAndConfirmOld(keyPrefix);
    const { app } = await buildTestApi({ redis, keyPrefix, clock: () => NOW });
    try {
      const rows = paymentsPageSchema.parse((await app.inject({ url: '/api/payments' })).json()).payments;
      expect(rows.map((row) => [row.batchId, row.timestampMs])).toEqual([
        [RECENT.id, RECENT.sentAtMs],
        [OLD.id, OLD.sentAtMs],
      ]);
    } finally {
      await app.close();
    }
  });

  it('classic /get_payments?time= (the time of the last row shown) pages on to the confirmed payout', async () => {
    const keyPrefix = 'payout-times-classic';
    await seedAndConfirmOld(keyPrefix);
    const { app } = await buildTestApi({
      redis,
      keyPrefix,
      clock: () => NOW,
      options: { classicApi: true },
    });
    try {
      const first = classicZsetSchema.parse((await app.inject({ url: '/get_payments' })).json());
      expect(first).toEqual([
        `${RECENT.txHash}:90:10:0:0`,
        seconds(RECENT.sentAtMs),
        `${OLD.txHash}:90:10:0:0`,
        seconds(OLD.sentAtMs),
      ]);
      const next = classicZsetSchema.parse(
        (await app.inject({ url: `/get_payments?time=${seconds(RECENT.sentAtMs)}` })).json(),
      );
      expect(next).toEqual([`${OLD.txHash}:90:10:0:0`, seconds(OLD.sentAtMs)]);
    } finally {
      await app.close();
    }
  });
});
