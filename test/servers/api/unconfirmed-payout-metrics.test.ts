import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { readSolvencySnapshot } from '../../../src/app/money-report.js';
import { solvencyMetrics } from '../../../src/servers/api/operations-metrics.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { useTestRedisClient } from '../../helpers/redis-server.js';
import { walletHolding } from '../../helpers/wallet-holding.js';
import { fundMiners, minerAddress } from '../../leader/payouts/payout-test-kit.js';
import { paidOut } from '../../store/payments/orphan-settlement-kit.js';
import { uniquePrefix } from '../../store/store-fixtures.js';

const COIN = 10_000_000n;
const HOUR_MS = 3_600_000;

/**
 * A payout the wallet sent whose transaction is not mined (stuck in fuegod's pool, or dropped
 * from it without walletd noticing) leaves its miners shown paid and never paid. The oldest such
 * batch's age is on /metrics, so an alert can fire long after a normal payout would have
 * confirmed (10 blocks of 480 s).
 */
describe('/metrics: the oldest sent payout not confirmed yet', () => {
  let redis: Redis;
  useTestRedisClient((client) => {
    redis = client;
  });

  it('is the age of the oldest sent batch until its transaction is confirmed, 0 when none waits', async () => {
    const keyPrefix = uniquePrefix('unconfirmed-sent-age');
    const [first, second] = [minerAddress('unmined-1'), minerAddress('unmined-2')];
    await fundMiners(redis, keyPrefix, [
      [first, 3n * COIN],
      [second, 2n * COIN],
    ]);
    const wallet = walletHolding(10n * COIN);
    const before = Date.now();
    await paidOut(redis, keyPrefix, first, 3n * COIN);
    const after = Date.now();
    await paidOut(redis, keyPrefix, second, 2n * COIN);

    const snapshot = await readSolvencySnapshot(keyPrefix, { redis, wallet });
    expect(snapshot.oldestUnconfirmedSentMs).toBeGreaterThanOrEqual(before);
    expect(snapshot.oldestUnconfirmedSentMs).toBeLessThanOrEqual(after);

    const registry = new Registry();
    const sevenHoursLater = (snapshot.oldestUnconfirmedSentMs ?? 0) + 7 * HOUR_MS;
    const set = solvencyMetrics(registry, () => sevenHoursLater);
    set(snapshot);
    const age = async () =>
      (await registry.getSingleMetric('fuego_pool_payout_oldest_unconfirmed_sent_age_seconds')?.get())
        ?.values[0]?.value;
    expect(await age()).toBe(7 * 3_600);

    // Both confirmed deep in the chain: nothing waits.
    const payouts = new PayoutStore({ keyPrefix }, { redis });
    const writer = { fencingToken: '', lockToken: 'confirm' };
    expect(await payouts.acquireLock(writer.lockToken, 60_000)).toBe(true);
    for (const batch of await payouts.listUnconfirmedSent()) await payouts.confirmSent(writer, batch.id, 500);
    const confirmed = await readSolvencySnapshot(keyPrefix, { redis, wallet });
    expect(confirmed.oldestUnconfirmedSentMs).toBeNull();
    set(confirmed);
    expect(await age()).toBe(0);
  });
});
