import { describe, expect, it } from 'vitest';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { captureLogs } from '../../helpers/log-capture.js';
import { uniquePrefix } from '../../store/store-fixtures.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { payoutRunnerFor } from './payout-runner-for.js';
import { devnetTransactionsWithBatch, fundMiners, minerAddress } from './payout-test-kit.js';

const COIN = 10_000_000n;
const INFO = 30;

/**
 * The pool's own log is where an operator finds whom a batch paid when both Redis and the wallet
 * lost the record of it (walletd rebuilds it from the chain naming no recipients): at info level,
 * before the wallet is called, the batch id with every transfer's account and atomic amount, and
 * after the send the transaction hash with the batch id.
 */
describe('the log of a payout batch', () => {
  const env = usePayoutDevnet();

  it('names the batch and every transfer at info level before the wallet is called, even when the process dies right after', async () => {
    const keyPrefix = uniquePrefix('batch-log');
    const miners = [minerAddress('batch-log-1'), minerAddress('batch-log-2')];
    await fundMiners(env.redis, keyPrefix, [
      [miners[0]!, 2n * COIN],
      [miners[1]!, 3n * COIN],
    ]);
    const logs = captureLogs('info');
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const runner = payoutRunnerFor(
      env.redis,
      keyPrefix,
      {
        wallet: env.wallet,
        logger: logs.logger,
        faults: {
          reached: async (step) => {
            if (step === 'wallet-called') throw new Error('process killed');
          },
        },
      },
      { minPayoutAtomic: COIN },
    );
    await expect(runner.runOnce()).rejects.toThrow('process killed');
    const [open] = await store.listOpenBatches();
    const [txHash] = devnetTransactionsWithBatch(env.devnet, open!.id);

    const named = logs.records.filter(
      (r) => r['batchId'] === open!.id && Array.isArray(r['transfers']) && Number(r['level']) >= INFO,
    );
    expect(named).toHaveLength(1);
    const transfers = named[0]!['transfers'] as Array<{ address: string; amountAtomic: string }>;
    expect(transfers.map((t) => t.address).sort()).toEqual([...miners].sort());
    const paid = open!.transfers.map((t) => [t.address, t.amountAtomic.toString()]).sort();
    expect(transfers.map((t) => [t.address, t.amountAtomic]).sort()).toEqual(paid);
    expect(txHash).toBeDefined();
  });

  it('names the transaction hash with the batch id after the send', async () => {
    const keyPrefix = uniquePrefix('batch-log-sent');
    const miner = minerAddress('batch-log-sent');
    await fundMiners(env.redis, keyPrefix, [[miner, 2n * COIN]]);
    const logs = captureLogs('info');
    const summary = await payoutRunnerFor(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: logs.logger },
      { minPayoutAtomic: COIN },
    ).runOnce();
    const [batch] = summary.batches;
    expect(batch?.state).toBe('sent');
    const sent = logs.records.filter(
      (r) => r['batchId'] === batch!.batchId && r['txHash'] === batch!.txHash && Number(r['level']) >= INFO,
    );
    expect(sent.length).toBeGreaterThan(0);
    const before = logs.records.findIndex(
      (r) => r['batchId'] === batch!.batchId && Array.isArray(r['transfers']),
    );
    const after = logs.records.findIndex((r) => r['txHash'] === batch!.txHash);
    expect(before).toBeGreaterThanOrEqual(0);
    expect(before).toBeLessThan(after);
  });
});
