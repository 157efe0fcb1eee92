import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import type { PayoutStep } from '../../src/leader/payouts/batch-sender.js';
import type { WalletClient } from '../../src/rpc/wallet-client.js';
import { createRedisClient } from '../../src/store/redis-client.js';
import { startTestDevnet } from '../devnet/devnet-test-helpers.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { expectLedgerConsistent } from '../leader/payouts/money-invariants.js';
import { payoutRunnerFor } from '../leader/payouts/payout-runner-for.js';
import {
  devnetTransactionsWithBatch,
  expectPaidExactlyOnce,
  fundMiners,
  minerAddress,
  unlessWalletHeld,
  walletClientFor,
} from '../leader/payouts/payout-test-kit.js';
import { silentLogger, uniquePrefix } from '../store/store-fixtures.js';

/**
 * The wallet goes down in the middle of a payout, at each step of the runner: before the
 * transaction is handed over, and right after walletd broadcast it but dropped the answer. The
 * runner must roll the batch back or leave it open (never guess "not sent"); after recovery every
 * miner is paid exactly once, each batch id is in exactly one transaction, and
 * balance + paid + fees = credited.
 */
const COIN = 10_000_000n;

describe('fault: wallet down during a payout', () => {
  let server: TestRedis;
  let redis: Redis;
  let devnet: Devnet;
  let wallet: WalletClient;

  beforeAll(async () => {
    [server, devnet] = await Promise.all([startTestRedis({ appendOnly: true }), startTestDevnet()]);
    redis = await createRedisClient({ url: server.url }, silentLogger);
    wallet = walletClientFor(devnet, 500);
  });

  beforeEach(async () => {
    await devnet.control.setWalletAvailability({ kind: 'up' });
    devnet.control.mineBlocks(11);
  });

  afterAll(async () => {
    wallet?.close();
    redis?.disconnect();
    await Promise.all([server?.stop(), devnet?.stop()]);
  });

  async function scenario(
    label: string,
    downAfter: PayoutStep,
    beforeSend: () => void,
  ): Promise<{ firstStates: string[]; openAfterOutage: number }> {
    const keyPrefix = uniquePrefix(`wallet-${label}`);
    const miners = [minerAddress(`${label}-1`), minerAddress(`${label}-2`), minerAddress(`${label}-3`)];
    const credits = miners.map((m, i) => [m, BigInt(i + 2) * COIN] as const);
    await fundMiners(redis, keyPrefix, credits);
    beforeSend();
    let tookDown = false;
    // Recovery runs look 27 h ahead: an ambiguous send the wallet does not know is rolled back only
    // after unresolvedRollbackAfterMs (26 h), by design.
    const runner = (withOutage: boolean, clockOffsetMs = 0) =>
      payoutRunnerFor(
        redis,
        keyPrefix,
        {
          wallet,
          logger: silentLogger,
          clock: () => Date.now() + clockOffsetMs,
          faults: {
            reached: async (step) => {
              if (withOutage && step === downAfter && !tookDown) {
                tookDown = true;
                await devnet.control.setWalletAvailability({ kind: 'unreachable' });
              }
            },
          },
        },
        { minPayoutAtomic: COIN, maxTransfersPerTransaction: 2 },
      );
    const first = await unlessWalletHeld(() => runner(true).runOnce());
    const firstStates = [...first.batches, ...first.stillOpen].map((b) => b.state);
    // While the wallet stays down, further runs pay nothing and break nothing.
    const whileDown = await runner(false).runOnce();
    expect(whileDown.batches.filter((b) => b.state === 'sent')).toEqual([]);
    const openAfterOutage = whileDown.stillOpen.length + first.stillOpen.length;

    await devnet.control.setWalletAvailability({ kind: 'up' });
    devnet.control.mineBlocks(1);
    const sentIds = new Set<string>();
    for (let run = 0; run < 4; run++) {
      const summary = await unlessWalletHeld(() => runner(false, run === 0 ? 0 : 27 * 3_600_000).runOnce());
      for (const b of [...summary.recovered, ...summary.batches])
        if (b.state === 'sent') sentIds.add(b.batchId);
      devnet.control.mineBlocks(1);
    }
    for (const b of [...first.batches, ...first.stillOpen]) if (b.state === 'sent') sentIds.add(b.batchId);
    for (const batchId of sentIds) {
      expect(devnetTransactionsWithBatch(devnet, batchId), `batch ${batchId}`).toHaveLength(1);
    }
    await expectPaidExactlyOnce(devnet, redis, keyPrefix, credits);
    await expectLedgerConsistent(redis, keyPrefix, miners);
    return { firstStates, openAfterOutage };
  }

  it('wallet unreachable when the transaction is handed over: rolled back or left open, then paid once', async () => {
    const result = await scenario('before-send', 'intent-written', () => {});
    console.info(`wallet down before send: first run states ${JSON.stringify(result.firstStates)}`);
    expect(result.firstStates).not.toContain('sent');
  });

  it('walletd broadcasts, drops the answer, then goes down: found in the wallet, each miner paid once', async () => {
    const result = await scenario('after-broadcast', 'wallet-called', () =>
      devnet.control.failAfterBroadcast(1, 'drop'),
    );
    console.info(
      `wallet down after broadcast: first run states ${JSON.stringify(result.firstStates)}, open while down ${result.openAfterOutage}`,
    );
  });
});
