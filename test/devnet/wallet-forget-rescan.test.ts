import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * A wallet that lost its record of a transaction (walletd reset, or restored from a backup older
 * than the send) rebuilds its history from the chain as it syncs: the record comes back once its
 * scan passes the transaction's block, or from its pool sync at the daemon's tip while the daemon's
 * pool still has it. One the daemon dropped unmined stays unknown (29), synced or not.
 */

const UNCONFIRMED = 4294967295;
const SUCCEEDED = 0;
/** A foreign address (the one fixture 73 paid). */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';
const NOT_FOUND = { code: -32000, data: { application_code: 29 }, message: 'Object not found' };

async function call<T>(devnet: Devnet, method: string, params: unknown = {}): Promise<T> {
  const reply = await jsonRpc(devnet.walletUrl, method, params);
  if (reply['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(reply['error'])}`);
  return reply['result'] as T;
}

interface Status {
  readonly blockCount: number;
  readonly knownBlockCount: number;
}

interface Balance {
  readonly availableBalance: number;
  readonly lockedAmount: number;
}
/** What one `pay` takes from the wallet: the amount and the fee. */
const SENT_WITH_FEE = 10_000_000 + 80_000;

const status = (devnet: Devnet) => call<Status>(devnet, 'getStatus');
const balance = (devnet: Devnet) => call<Balance>(devnet, 'getBalance');
/** Available plus locked: coinbase outputs unlock as the scan moves. */
const total = (b: Balance) => b.availableBalance + b.lockedAmount;
const pay = async (devnet: Devnet) =>
  (
    await call<{ transactionHash: string }>(devnet, 'sendTransaction', {
      transfers: [{ address: FOREIGN, amount: 10_000_000 }],
      fee: 80000,
      anonymity: 2,
    })
  ).transactionHash;
/** getTransaction's error, or undefined when the wallet has the record. */
const readError = async (devnet: Devnet, hash: string) =>
  (await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash }))['error'];
const recordOf = async (devnet: Devnet, hash: string) =>
  (
    await call<{ transaction: { state: number; blockIndex: number } }>(devnet, 'getTransaction', {
      transactionHash: hash,
    })
  ).transaction;
const listedIn = async (devnet: Devnet, height: number) =>
  (
    await call<{ items: { transactionHashes: string[] }[] }>(devnet, 'getTransactionHashes', {
      firstBlockIndex: height,
      blockCount: 1,
    })
  ).items.flatMap((item) => item.transactionHashes);
const unconfirmed = async (devnet: Devnet) =>
  (await call<{ transactionHashes: string[] }>(devnet, 'getUnconfirmedTransactionHashes')).transactionHashes;

describe('devnet walletd: a forgotten transaction record comes back as the wallet rescans', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet();
  });
  afterEach(() => {
    devnet.control.releaseWalletScan();
    devnet.control.setWalletSyncLag(0);
  });
  afterAll(async () => {
    await devnet?.stop();
  });

  test('forgotten while pooled and mined later: 29 until the wallet scan passes its block, then found in it (no finishWalletRescan)', async () => {
    devnet.control.setWalletSyncLag(2);
    const hash = await pay(devnet);
    devnet.control.forgetWalletTransaction(hash);
    const [block] = devnet.control.mineBlocks(1);
    expect(block!.transactions.map((tx) => tx.hash)).toContain(hash);
    devnet.control.mineBlocks(1);
    // The scan (2 behind) has not passed the block yet.
    expect((await status(devnet)).blockCount).toBe(block!.height);
    expect(await readError(devnet, hash)).toEqual(NOT_FOUND);

    devnet.control.mineBlocks(1);
    expect((await status(devnet)).blockCount).toBe(block!.height + 1);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
    expect(await listedIn(devnet, block!.height)).toContain(hash);
  });

  test('forgotten once scanned: the wallet scan goes back to its block (not synced) and the record comes back as the scan passes it', async () => {
    const hash = await pay(devnet);
    const [block] = devnet.control.mineBlocks(2);
    expect(await recordOf(devnet, hash)).toMatchObject({ blockIndex: block!.height });
    devnet.control.holdWalletScan();
    devnet.control.forgetWalletTransaction(hash);
    const behind = await status(devnet);
    expect(behind.blockCount).toBe(block!.height);
    expect(behind.knownBlockCount).toBe(devnet.chain.height);
    expect(await readError(devnet, hash)).toEqual(NOT_FOUND);
    expect(await listedIn(devnet, block!.height)).toEqual([]);

    devnet.control.advanceWalletScan(1);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
    devnet.control.releaseWalletScan();
    expect((await status(devnet)).blockCount).toBe(devnet.chain.height);

    // A scan that is not held rescans at once (no scanBlocksPerSecond): the next request finds it.
    devnet.control.forgetWalletTransaction(hash);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
  });

  test('forgotten while pooled: found again by the pool sync at the tip; one the daemon dropped stays unknown though the wallet is synced', async () => {
    const pooled = await pay(devnet);
    const dropped = await pay(devnet);
    devnet.control.holdWalletScan();
    const before = total(await balance(devnet));
    devnet.control.forgetWalletTransaction(pooled);
    devnet.control.forgetWalletTransaction(dropped);
    expect(devnet.control.dropFromMempool(dropped)).toBe(true);
    expect(await readError(devnet, pooled)).toEqual(NOT_FOUND);
    expect(await unconfirmed(devnet)).not.toContain(pooled);
    // Not knowing the spends, the wallet counts their inputs again (and not their change).
    expect(total(await balance(devnet))).toBe(before + 2 * SENT_WITH_FEE);

    devnet.control.releaseWalletScan();
    const synced = await status(devnet);
    expect(synced.blockCount).toBe(synced.knownBlockCount);
    expect(await recordOf(devnet, pooled)).toMatchObject({ state: SUCCEEDED, blockIndex: UNCONFIRMED });
    expect(await unconfirmed(devnet)).toContain(pooled);
    expect(await readError(devnet, dropped)).toEqual(NOT_FOUND);
    expect(await unconfirmed(devnet)).not.toContain(dropped);
    expect(total(await balance(devnet))).toBe(before + SENT_WITH_FEE);
    devnet.control.mineBlocks(1);
    expect(await readError(devnet, dropped)).toEqual(NOT_FOUND);
  });
});

describe('devnet walletd: a slow rescan', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    // One block in 1,000 s: the scan does not move by itself during the test.
    devnet = await startTestDevnet({ wallet: { scanBlocksPerSecond: 0.001 } });
  });
  afterAll(async () => {
    await devnet?.stop();
  });

  test('the record comes back only when the scan reaches its block again; finishWalletRescan takes the scan to the tip at once', async () => {
    const hash = await pay(devnet);
    const [block] = devnet.control.mineBlocks(3);
    devnet.control.finishWalletRescan();
    expect(await recordOf(devnet, hash)).toMatchObject({ blockIndex: block!.height });
    devnet.control.forgetWalletTransaction(hash);
    expect((await status(devnet)).blockCount).toBe(block!.height);
    expect(await readError(devnet, hash)).toEqual(NOT_FOUND);

    devnet.control.finishWalletRescan();
    expect((await status(devnet)).blockCount).toBe(devnet.chain.height);
    expect(await recordOf(devnet, hash)).toMatchObject({ state: SUCCEEDED, blockIndex: block!.height });
  });
});
