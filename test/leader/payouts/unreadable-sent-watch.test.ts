import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  FEE_ASSUMED_RESOLUTION,
  FEE_READ_LATER_RESOLUTION,
} from '../../../src/model/payouts/payout-batch.js';
import { PayoutStore } from '../../../src/store/payments/payout-store.js';
import { silentLogger, uniquePrefix } from '../../store/store-fixtures.js';
import { usePayoutDevnet } from './payout-devnet-env.js';
import { threeMinersPayFeeRunner } from './payout-runner-for.js';
import { fundMiners, fundThreeMiners, minerAddress, unlessWalletHeld } from './payout-test-kit.js';

const COIN = 10_000_000n;
/** More than the runner reads per pass (its MAX_WATCHED_PER_RUN). */
const STUCK = 201;

/**
 * Sent batches whose transaction the wallet cannot read (a wallet restored from a backup, a record
 * walletd deleted) stay watched: nothing is decided on them. They must not take every read of a
 * pass, or no later batch is ever watched: its assumed fee never settled, its dropped transaction
 * never credited back.
 */
describe('sent batches the wallet cannot read', () => {
  const env = usePayoutDevnet();

  it('do not keep newer sent batches from being watched', async () => {
    const label = 'unreadable-watch';
    const keyPrefix = uniquePrefix(label);
    // STUCK older sent batches whose transactions the wallet does not know.
    const stuck = Array.from({ length: STUCK }, (_, i) => minerAddress(`${label}-stuck-${i}`));
    await fundMiners(
      env.redis,
      keyPrefix,
      stuck.map((address) => [address, COIN] as const),
    );
    const store = new PayoutStore({ keyPrefix }, { redis: env.redis });
    const writer = { fencingToken: '', lockToken: randomUUID() };
    expect(await store.acquireLock(writer.lockToken, 60_000)).toBe(true);
    for (const address of stuck) {
      const id = randomBytes(16).toString('hex');
      await store.prepareBatch(writer, {
        id,
        transfers: [
          { address, destination: address, amountAtomic: COIN, feeShareAtomic: 0n, debitAtomic: COIN },
        ],
        paymentId: '',
        networkFeeAtomic: 80_000n,
        feePaidBy: 'pool',
        walletBlockCount: 1,
      });
      await store.markSending(writer, id);
      const batch = (await store.getBatch(id))!;
      await store.markSent(writer, batch, {
        txHash: randomBytes(32).toString('hex'),
        actualFeeAtomic: 80_000n,
        resolution: 'wallet-reply',
      });
    }
    await store.releaseLock(writer.lockToken);

    // A newer batch, sent while the wallet could not tell its fee.
    await fundThreeMiners(env.redis, keyPrefix, label);
    const runner = threeMinersPayFeeRunner(
      env.redis,
      keyPrefix,
      { wallet: env.wallet, logger: silentLogger },
      100_000n,
    );
    env.devnet.control.failReadsOfNextSend(1);
    const first = await unlessWalletHeld(() => runner.runOnce());
    expect(first.batches.map((b) => b.state)).toEqual(['sent']);
    const batchId = first.batches[0]!.batchId;
    expect(await store.getBatch(batchId)).toMatchObject({ resolution: FEE_ASSUMED_RESOLUTION });

    // Within two passes (the first may spend its reads on the unreadable ones) its fee is settled.
    await unlessWalletHeld(() => runner.runOnce());
    await unlessWalletHeld(() => runner.runOnce());
    expect(await store.getBatch(batchId)).toMatchObject({ resolution: FEE_READ_LATER_RESOLUTION });
  });
});
