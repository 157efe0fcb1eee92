import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * walletd learns what left its daemon's pool only from a pool sync (BlockchainSynchronizer's
 * startPoolSync), and it runs that only once its block sync has reached the daemon's tip and the
 * daemon is not behind its peers: the daemon answers "your last block is not my tail" and walletd
 * goes back to syncing blocks. So a sent transaction the daemon drops while the wallet trails stays
 * unconfirmed to the wallet (state 0, no block), its inputs still spent, until the wallet catches up;
 * only then is it CANCELLED (2). And walletd forgets only transactions a pool sync saw in the pool:
 * one it sent while trailing that is gone before it caught up stays unconfirmed.
 */

const UNCONFIRMED = 4294967295;
const SUCCEEDED = 0;
const CANCELLED = 2;
/** A foreign address (the one fixture 73 paid). */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

async function call<T>(devnet: Devnet, method: string, params: unknown = {}): Promise<T> {
  const reply = await jsonRpc(devnet.walletUrl, method, params);
  if (reply['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(reply['error'])}`);
  return reply['result'] as T;
}

interface Balance {
  readonly availableBalance: number;
  readonly lockedAmount: number;
}

const balance = (devnet: Devnet) => call<Balance>(devnet, 'getBalance');
const unconfirmed = async (devnet: Devnet) =>
  (await call<{ transactionHashes: string[] }>(devnet, 'getUnconfirmedTransactionHashes')).transactionHashes;
const recordOf = async (devnet: Devnet, hash: string) =>
  (
    await call<{ transaction: { state: number; blockIndex: number } }>(devnet, 'getTransaction', {
      transactionHash: hash,
    })
  ).transaction;
const pay = async (devnet: Devnet) =>
  (
    await call<{ transactionHash: string }>(devnet, 'sendTransaction', {
      transfers: [{ address: FOREIGN, amount: 10_000_000 }],
      fee: 80000,
      anonymity: 2,
    })
  ).transactionHash;

/** What the wallet shows of `hash`: still pending to it, or cancelled and its inputs spendable again. */
/** Available plus locked: coinbase outputs unlocking as the wallet scans on move between the two. */
const total = (b: Balance) => b.availableBalance + b.lockedAmount;

/** The wallet still holds `hash` as sent: unconfirmed, listed, its inputs spent (`held` its total then). */
async function expectPending(devnet: Devnet, hash: string, held: Balance): Promise<void> {
  expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: UNCONFIRMED });
  expect(await unconfirmed(devnet)).toContain(hash);
  expect(total(await balance(devnet))).toBe(total(held));
}

/** The wallet has let `hash` go: CANCELLED, not listed, its inputs its own again (the total of `before`). */
async function expectCancelled(devnet: Devnet, hash: string, before: Balance): Promise<void> {
  expect(await recordOf(devnet, hash)).toMatchObject({ state: CANCELLED, blockIndex: UNCONFIRMED });
  expect(await unconfirmed(devnet)).not.toContain(hash);
  expect(total(await balance(devnet))).toBe(total(before));
}

describe('devnet walletd: pool changes reach the wallet only when it is at the daemon tip', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterEach(async () => {
    devnet.control.releaseWalletScan();
    devnet.control.setWalletSyncLag(0);
    devnet.control.setDaemonKnownBlocksAhead(0);
    await devnet.control.setDaemonAvailability({ kind: 'up' });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('dropped while the scan is held, then while it trails a block: still pending; at the tip: CANCELLED', async () => {
    const before = await balance(devnet);
    const hash = await pay(devnet);
    const held = await balance(devnet);
    devnet.control.holdWalletScan();
    expect(devnet.control.dropFromMempool(hash)).toBe(true);
    await expectPending(devnet, hash, held);
    // A block without it: the wallet, one block behind, still asks for blocks, not pool changes.
    devnet.control.mineBlocks(1, FOREIGN);
    devnet.control.setWalletSyncLag(1);
    devnet.control.releaseWalletScan();
    expect((await call<{ blockCount: number }>(devnet, 'getStatus')).blockCount).toBe(
      devnet.chain.height - 1,
    );
    await expectPending(devnet, hash, held);
    devnet.control.setWalletSyncLag(0);
    await expectCancelled(devnet, hash, before);
  });

  test('dropped while the daemon is behind its peers (the wallet at its tip): pending until the daemon has caught up', async () => {
    const before = await balance(devnet);
    const hash = await pay(devnet);
    const held = await balance(devnet);
    devnet.control.setDaemonKnownBlocksAhead(1);
    expect(devnet.control.dropFromMempool(hash)).toBe(true);
    await expectPending(devnet, hash, held);
    devnet.control.setDaemonKnownBlocksAhead(0);
    await expectCancelled(devnet, hash, before);
  });

  test('dropped while the daemon is unreachable: pending until the wallet can ask it again', async () => {
    const before = await balance(devnet);
    const hash = await pay(devnet);
    const held = await balance(devnet);
    await devnet.control.setDaemonAvailability({ kind: 'unreachable' });
    expect(devnet.control.dropFromMempool(hash)).toBe(true);
    await expectPending(devnet, hash, held);
    await devnet.control.setDaemonAvailability({ kind: 'up' });
    await expectCancelled(devnet, hash, before);
  });

  test('sent while the wallet trails and dropped before it caught up: never seen in a pool sync, so it stays pending', async () => {
    devnet.control.holdWalletScan();
    devnet.control.mineBlocks(1, FOREIGN);
    const hash = await pay(devnet);
    const held = await balance(devnet);
    const bytes = devnet.chain.findTransaction(hash)!.tx.bytes;
    expect(devnet.control.dropFromMempool(hash)).toBe(true);
    devnet.control.releaseWalletScan();
    expect((await call<{ blockCount: number }>(devnet, 'getStatus')).blockCount).toBe(devnet.chain.height);
    await expectPending(devnet, hash, held);
    // Mined after all (another node kept it): confirmed as usual.
    expect(devnet.chain.addTransaction(bytes).ok).toBe(true);
    const [block] = devnet.control.mineBlocks(1, FOREIGN);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
  });

  test('stuck that way, a walletd restart lets it go: at load its unconfirmed transactions count as pool-known, the next pool sync cancels the missing one', async () => {
    const before = await balance(devnet);
    devnet.control.holdWalletScan();
    devnet.control.mineBlocks(1, FOREIGN);
    const hash = await pay(devnet);
    const held = await balance(devnet);
    expect(devnet.control.dropFromMempool(hash)).toBe(true);
    devnet.control.releaseWalletScan();
    await expectPending(devnet, hash, held);
    // One still in the daemon's pool is kept through the restart.
    const kept = await pay(devnet);
    devnet.control.restartWallet();
    expect(await recordOf(devnet, hash)).toMatchObject({ state: CANCELLED, blockIndex: UNCONFIRMED });
    expect(await unconfirmed(devnet)).toEqual([kept]);
    devnet.control.dropFromMempool(kept);
    await expectCancelled(devnet, kept, before);
  });

  test('a transaction mined in blocks the wallet has not scanned stays pending; scanned, it is confirmed, not cancelled', async () => {
    const hash = await pay(devnet);
    devnet.control.holdWalletScan();
    const [block] = devnet.control.mineBlocks(1, FOREIGN);
    expect(block!.transactions.map((t) => t.hash)).toContain(hash);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: UNCONFIRMED });
    devnet.control.releaseWalletScan();
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
    expect(await unconfirmed(devnet)).not.toContain(hash);
  });
});
