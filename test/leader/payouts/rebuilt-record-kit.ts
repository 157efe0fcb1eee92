import { expect } from 'vitest';
import { readMoneyReport } from '../../../src/app/money-report.js';
import { formatMoneyReport } from '../../../src/cli/commands/report.js';
import type { PayoutStep } from '../../../src/leader/payouts/batch-sender.js';
import type { PayoutRunner } from '../../../src/leader/payouts/payout-runner.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { restorePool, snapshotPool } from '../../helpers/lost-writes.js';
import type { PayoutDevnetEnv } from './payout-devnet-env.js';
import { devnetTransactionsWithBatch } from './payout-test-kit.js';

/** The wallet forgets `txHash`, then finds it again in the block that mines it (its scan is not held). */
export function walletRebuilds(env: PayoutDevnetEnv, txHash: string): void {
  env.devnet.control.forgetWalletTransaction(txHash);
  env.devnet.control.mineBlocks(1);
}

/**
 * The wallet pays a batch of the runner `runner(reached)` makes, then Redis loses every write since
 * before it and the process dies (so nothing notices at once): the next pass finds the tagged
 * transaction itself. Its hash and the batch id.
 */
export async function paidThenLost(
  env: PayoutDevnetEnv,
  keyPrefix: string,
  runner: (reached: (step: PayoutStep) => Promise<void>) => PayoutRunner,
): Promise<{ txHash: string; batchId: string }> {
  const before = await snapshotPool(env.redis, keyPrefix);
  const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
  let batchId = '';
  await expect(
    runner(async (step) => {
      if (step !== 'wallet-called') return;
      batchId = (await store.listOpenBatches())[0]!.id;
      await restorePool(env.redis, keyPrefix, before);
      throw new Error('process killed');
    }).runOnce(),
  ).rejects.toThrow('process killed');
  const [txHash] = devnetTransactionsWithBatch(env.devnet, batchId);
  return { txHash: txHash!, batchId };
}

/** What `fuego-pool report` prints for the pool under `keyPrefix` (its lines, and whether healthy). */
export async function printedReport(env: PayoutDevnetEnv, keyPrefix: string) {
  return formatMoneyReport(
    await readMoneyReport(keyPrefix, {
      redis: env.redis,
      wallet: env.wallet,
      durability: { replicas: 0, timeoutMs: 1_000 },
    }),
    Date.now(),
  );
}
