import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  MAX_UNMINED_ASKED_PER_PASS,
  noticeUnminedBatches,
} from '../../../src/leader/payouts/unmined-notice.js';
import { createPaymentKeys } from '../../../src/store/payments/payment-keys.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { seedPayoutBatches } from '../../helpers/payout-batch-seed.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';

const HOUR_MS = 3_600_000;

/**
 * Which late sent payouts a pass asks fuegod about and tells, on a real Redis with a counting
 * daemon. Many at once (fuegod lost its pool, a wallet stuck for a day): one pool read and at most
 * MAX_UNMINED_ASKED_PER_PASS lookups a pass, the oldest first, each told once, the rest in the next
 * passes. One the wallet has no record of is left to payout-unknown-to-wallet.
 */
describe('noticeUnminedBatches', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('asks fuegod about at most 20 a pass, tells each once, and the rest in the next passes', async () => {
    const keyPrefix = uniquePrefix('unmined-many');
    const count = MAX_UNMINED_ASKED_PER_PASS + 5;
    const sentMs = 1_000_000;
    const batches = Array.from({ length: count }, (_, i) => ({
      id: `b-${String(i).padStart(2, '0')}`,
      state: 'sent' as const,
      createdAtMs: sentMs + i,
      updatedAtMs: sentMs + i,
      resolvedAtMs: sentMs + i,
      txHash: i.toString(16).padStart(64, '0'),
    }));
    await seedPayoutBatches(redis, keyPrefix, batches);
    const keys = createPaymentKeys(keyPrefix);
    for (const batch of batches) await redis.zadd(keys.batchesUnconfirmed, batch.resolvedAtMs, batch.id);
    const nowMs = sentMs + 7 * HOUR_MS;
    const journal = new PayoutStore({ keyPrefix }, { redis, clock: () => nowMs });
    const writer = { fencingToken: '', lockToken: 'lock' };
    expect(await journal.acquireLock(writer.lockToken, 60_000)).toBe(true);
    const calls = { pool: 0, lookups: [] as string[] };
    const daemon = {
      getPoolTransactionHashes: async () => {
        calls.pool += 1;
        return [];
      },
      findTransactionBlock: async (hash: string) => {
        calls.lookups.push(hash);
        return null;
      },
    };
    const pass = () =>
      noticeUnminedBatches(writer, { journal, daemon, logger: silentLogger, clock: () => nowMs });

    const first = await pass();
    expect(first.map((r) => r.batchId)).toEqual(
      batches.slice(0, MAX_UNMINED_ASKED_PER_PASS).map((b) => b.id),
    );
    expect(first[0]).toMatchObject({ sighting: { kind: 'nowhere' }, ageMs: 7 * HOUR_MS, sentAtMs: sentMs });
    expect(calls).toEqual({
      pool: 1,
      lookups: batches.slice(0, MAX_UNMINED_ASKED_PER_PASS).map((b) => b.txHash),
    });

    const second = await pass();
    expect(second.map((r) => r.batchId)).toEqual(batches.slice(MAX_UNMINED_ASKED_PER_PASS).map((b) => b.id));
    expect(calls.pool).toBe(2);
    expect(calls.lookups).toHaveLength(count);

    // All told: fuegod is not asked again.
    expect(await pass()).toEqual([]);
    expect(calls.pool).toBe(2);
    expect(calls.lookups).toHaveLength(count);
  });
  it('leaves out a late batch the wallet has no record of: payout-unknown-to-wallet told it, and restarting walletd would not let it go', async () => {
    const keyPrefix = uniquePrefix('unmined-wallet-missing');
    const sentMs = 1_000_000;
    const batches = ['missing', 'stuck'].map((id, i) => ({
      id,
      state: 'sent' as const,
      createdAtMs: sentMs + i,
      updatedAtMs: sentMs + i,
      resolvedAtMs: sentMs + i,
      txHash: String(i + 1).repeat(64),
    }));
    await seedPayoutBatches(redis, keyPrefix, batches);
    const keys = createPaymentKeys(keyPrefix);
    for (const batch of batches) await redis.zadd(keys.batchesUnconfirmed, batch.resolvedAtMs, batch.id);
    const nowMs = sentMs + 7 * HOUR_MS;
    const journal = new PayoutStore({ keyPrefix }, { redis, clock: () => nowMs });
    const writer = { fencingToken: '', lockToken: 'lock' };
    expect(await journal.acquireLock(writer.lockToken, 60_000)).toBe(true);
    expect(await journal.markWalletMissing(writer, 'missing', true)).toBe(true);
    const lookups: string[] = [];
    const daemon = {
      getPoolTransactionHashes: async () => [],
      findTransactionBlock: async (hash: string) => {
        lookups.push(hash);
        return null;
      },
    };
    const told = await noticeUnminedBatches(writer, {
      journal,
      daemon,
      logger: silentLogger,
      clock: () => nowMs,
    });
    expect(told.map((r) => r.batchId)).toEqual(['stuck']);
    expect(lookups).toEqual([batches[1]!.txHash]);
  });
});
