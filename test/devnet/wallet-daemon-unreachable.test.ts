import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * walletd keeps no chain of its own: every sendTransaction asks the daemon for decoys (ring size 3
 * in 1.9.3) before it builds anything, and every send ends with a relay to the daemon. So with the
 * daemon unreachable a send fails with the daemon connection's 7 "Can't connect to daemon", and
 * nothing is built or spent; reads (balance, history) still answer from the wallet's cache.
 */

const NODE_UNREACHABLE = { code: -32000, data: { application_code: 7 }, message: "Can't connect to daemon" };
/** A foreign address (the one fixture 73 paid). */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

const call = async (devnet: Devnet, method: string, params: unknown) =>
  jsonRpc(devnet.walletUrl, method, params, 1);
const available = async (devnet: Devnet) =>
  ((await call(devnet, 'getBalance', {}))['result'] as { availableBalance: number }).availableBalance;
const transfer = { transfers: [{ address: FOREIGN, amount: 10_000_000 }], fee: 80000, anonymity: 2 };

describe('walletd with its daemon unreachable', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterEach(async () => {
    await devnet.control.setDaemonAvailability({ kind: 'up' });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('sendTransaction fails with 7 "Can\'t connect to daemon", builds nothing and spends nothing', async () => {
    const before = await available(devnet);
    await devnet.control.setDaemonAvailability({ kind: 'unreachable' });
    expect((await call(devnet, 'sendTransaction', transfer))['error']).toEqual(NODE_UNREACHABLE);
    expect(devnet.chain.mempool()).toHaveLength(0);
    expect(devnet.wallet.builtTransactionHashes()).toHaveLength(0);
    expect(await available(devnet)).toBe(before);
  });

  test('the same send goes through once the daemon is back', async () => {
    await devnet.control.setDaemonAvailability({ kind: 'unreachable' });
    await devnet.control.setDaemonAvailability({ kind: 'up' });
    const pooled = devnet.chain.mempool().length;
    const reply = await call(devnet, 'sendTransaction', transfer);
    expect(reply['error']).toBeUndefined();
    expect(devnet.chain.mempool()).toHaveLength(pooled + 1);
  });

  test('sendDelayedTransaction cannot relay: 7, and the transaction stays delayed', async () => {
    // The earlier sends' change becomes spendable after 10 blocks.
    devnet.control.mineBlocks(11);
    const created = await call(devnet, 'createDelayedTransaction', transfer);
    expect(created['error']).toBeUndefined();
    const transactionHash = (created['result'] as { transactionHash: string }).transactionHash;
    const pooled = devnet.chain.mempool().length;
    await devnet.control.setDaemonAvailability({ kind: 'unreachable' });
    expect((await call(devnet, 'sendDelayedTransaction', { transactionHash }))['error']).toEqual(
      NODE_UNREACHABLE,
    );
    expect(devnet.chain.mempool()).toHaveLength(pooled);
    const delayed = (await call(devnet, 'getDelayedTransactionHashes', {}))['result'] as {
      transactionHashes: string[];
    };
    expect(delayed.transactionHashes).toEqual([transactionHash]);
  });
});
