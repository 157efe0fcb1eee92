import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import {
  capturedWalletTransaction,
  sendToSecondAddress,
  startTestDevnet,
  walletTransaction,
} from './devnet-test-helpers.js';

interface TxRecord {
  readonly blockIndex: number;
  readonly confirmations: number;
  readonly state: number;
  readonly timestamp: number;
}

const captured = (name: string): TxRecord => capturedWalletTransaction<TxRecord>(name);

/**
 * walletd 1.9.3 computes a record's `confirmations` as blockCount − blockIndex in 32-bit unsigned
 * arithmetic, so a transaction still in the pool (blockIndex 4294967295) shows blockCount + 1
 * confirmations: 45 and 53 were taken at blockCount 64 (their transactions were mined in block 64,
 * 55) and say 65. A pool that read `confirmations` instead of `blockIndex` would take an unsent
 * payout for a deeply confirmed one; a devnet answering 0 would hide that.
 */
describe('devnet walletd: the record of a transaction still in the pool', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('the captured records: blockIndex 4294967295, confirmations blockCount + 1, timestamp 0, state 0', () => {
    for (const name of ['45-getTransaction-sent-with-fee1', '53-getTransaction-delayed-fee1']) {
      expect(captured(name)).toMatchObject({
        blockIndex: 4294967295,
        confirmations: 65,
        timestamp: 0,
        state: 0,
      });
    }
    expect(captured('55-getTransaction-fee1-after-mined')).toMatchObject({
      blockIndex: 64,
      confirmations: 1,
    });
  });

  test('getTransaction answers the same for a send still in the pool, and blockCount − blockIndex once mined', async () => {
    const hash = await sendToSecondAddress(devnet);
    const record = () => walletTransaction<TxRecord>(devnet, hash);

    const blockCount = devnet.chain.height;
    expect(await record()).toMatchObject({
      blockIndex: 4294967295,
      confirmations: blockCount + 1,
      timestamp: 0,
      state: 0,
    });

    devnet.control.mineBlocks(1);
    expect(await record()).toMatchObject({ blockIndex: blockCount, confirmations: 1, state: 0 });
  });
});
