import { describe, expect, it } from 'vitest';
import { PayoutWatchStore } from '../../../src/store/payments/payout-watch-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import { fundThreeMiners, unlessWalletHeld } from './payout-test-kit.js';

const DAY_MS = 86_400_000;

/**
 * The pause after a refusal that repeats never lasts longer than its maximum: a backoff that ends
 * further ahead than that was set before the clock went back (an NTP step, a VM restored), and
 * must not hold every payout for as long as the clock jumped.
 */
describe('a send backoff and a clock set back', () => {
  const env = usePayoutDevnet();

  it('holds payouts no longer than the maximum pause', async () => {
    const label = 'backoff-clock';
    const { keyPrefix } = await fundThreeMiners(env.redis, uniquePrefix(label), label);
    const setAtMs = Date.now();
    // The wallet refused at setAtMs; a one-minute pause.
    await new PayoutWatchStore({ keyPrefix }, { redis: env.redis }).setBackoff({
      untilMs: setAtMs + 60_000,
      attempt: 1,
      reason: 'MixIn count is too big',
      sinceMs: setAtMs,
    });
    // Then the clock went back a day.
    const runner = payoutRunnerFor(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: silentLogger, clock: () => setAtMs - DAY_MS },
      { refusalBackoff: { firstDelayMs: 60_000, maxDelayMs: 3_600_000 } },
    );
    const summary = await unlessWalletHeld(() => runner.runOnce());
    expect(summary.skipped).toBeNull();
    expect(summary.batches.map((b) => b.state)).toEqual(['sent']);
  });
});
