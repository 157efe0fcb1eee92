import { describe, expect, it } from 'vitest';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { expectLedgerConsistent } from './money-invariants.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import { expectPaidExactlyOnce, fundMiners, minerAddress } from './payout-test-kit.js';

const COIN = 10_000_000n;
/** payments.payouts.unresolvedRollbackAfterSec's default, as payoutRunnerFor maps it. */
const ROLLBACK_AFTER_MS = 26 * 3_600_000;

/**
 * Found by the money soak (test/faults/money-soak.test.ts, FUEGO_SOAK_SEED=2058). A send that
 * fails after broadcasting leaves its batch `sending`: the wallet has the transaction in its
 * mempool, and only the wallet's word settles the batch. While walletd cannot read that pending
 * transaction (getTransaction answers 5 "Internal error occurred": busy, restarting), the scan
 * must not take it for absent: an ambiguous batch "not found" unresolvedRollbackAfterSec after the
 * send is rolled back, its miners credited back and paid again by a new batch, while the first
 * transaction is still mined.
 */
describe('an ambiguous send whose pending transaction the wallet cannot read for a while', () => {
  const env = usePayoutDevnet();

  it('is never rolled back while unreadable, and each miner is paid once', async () => {
    const keyPrefix = uniquePrefix('unreadable-pending');
    const miner = minerAddress('unreadable-pending');
    const credits = [[miner, 2n * COIN]] as const;
    await fundMiners(env.redis, keyPrefix, credits);
    let nowMs = 1_800_000_000_000;
    const runner = () =>
      payoutRunnerFor(
        env.redis,
        keyPrefix,
        { wallet: env.wallet, logger: silentLogger, clock: () => nowMs },
        { minPayoutAtomic: COIN },
      );
    // Broadcast, then the call fails; the next reads of its transaction fail too.
    env.devnet.control.failAfterBroadcast(1, 'error');
    env.devnet.control.failReadsOfNextSend(3);
    const first = await runner().runOnce();
    expect(first.stillOpen.map((b) => b.state)).toEqual(['sending']);
    // Past the time an unresolved send waits before it may be rolled back; the wallet answers
    // again after its failed reads: pass after pass, until nothing is open.
    nowMs += ROLLBACK_AFTER_MS + 3_600_000;
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    for (let pass = 0; pass < 6 && (await store.listOpenBatches()).length > 0; pass++)
      await runner().runOnce();
    expect(await store.listOpenBatches()).toEqual([]);
    const batches = await store.listRecentBatches();
    expect(batches.map((b) => b.state)).toEqual(['sent']);
    env.devnet.control.mineBlocks(1);
    await expectPaidExactlyOnce(env.devnet, env.redis, keyPrefix, credits);
    await expectLedgerConsistent(env.redis, keyPrefix, [miner]);
  });
});
