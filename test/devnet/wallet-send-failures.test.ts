import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * How the devnet's walletd refuses or loses a send, as the real 1.9.3 does: "MixIn count is too big"
 * while the chain has no decoys, and a transaction whose relay fails kept as FAILED (state 1), seen
 * only by getTransaction.
 */

const MIXIN_TOO_BIG = { code: -32000, data: { application_code: 6 }, message: 'MixIn count is too big' };
const NODE_REFUSED = { code: -32000, data: { application_code: 5 }, message: 'Internal node error' };
const NODE_UNREACHABLE = { code: -32000, data: { application_code: 7 }, message: "Can't connect to daemon" };
/** A foreign address (the one fixture 73 paid). */
const FOREIGN =
  'fireLatcLpwh9ut8LYbz1uTUfe9mhdnqF3n9TM79QdSx83VX1FDsP5z3TcfJRiFd4NjUw5QWBC6FaFrwY3LAGiHr5iQPKvTHmW';

type WalletRecord = {
  state: number;
  blockIndex: number;
  extra: string;
  fee: number;
  amount: number;
  transfers: { address: string; amount: number; type: number }[];
};

const call = async (devnet: Devnet, method: string, params: unknown) =>
  jsonRpc(devnet.walletUrl, method, params, 1);
const recordOf = async (devnet: Devnet, transactionHash: string) =>
  ((await call(devnet, 'getTransaction', { transactionHash }))['result'] as { transaction: WalletRecord })
    .transaction;
const available = async (devnet: Devnet) =>
  ((await call(devnet, 'getBalance', {}))['result'] as { availableBalance: number }).availableBalance;
const listedHashes = async (devnet: Devnet) => {
  const items = (
    (await call(devnet, 'getTransactions', { firstBlockIndex: 0, blockCount: devnet.chain.height + 1 }))[
      'result'
    ] as { items: { transactions: { transactionHash: string }[] }[] }
  ).items;
  return items.flatMap((item) => item.transactions.map((t) => t.transactionHash));
};
const unconfirmedHashes = async (devnet: Devnet) =>
  ((await call(devnet, 'getUnconfirmedTransactionHashes', {}))['result'] as { transactionHashes: string[] })
    .transactionHashes;

describe('requireDecoys: sends need two decoys per input amount from the chain', () => {
  let devnet: Devnet;
  const network = () => FOREIGN;
  const pay = (anonymity: number) =>
    call(devnet, 'sendTransaction', {
      transfers: [{ address: FOREIGN, amount: 10_000_000 }],
      fee: 80000,
      anonymity,
    });

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { requireDecoys: true } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('on a young chain every send is refused, whatever anonymity says, and nothing is built', async () => {
    const before = await available(devnet);
    for (const anonymity of [0, 2, 20, 2]) expect((await pay(anonymity))['error']).toEqual(MIXIN_TOO_BIG);
    expect(devnet.chain.mempool()).toHaveLength(0);
    expect(devnet.wallet.builtTransactionHashes()).toHaveLength(0);
    expect(await available(devnet)).toBe(before);
  });

  test('once the chain has grown past the maturity of a second block of those amounts, it goes through', async () => {
    devnet.control.mineBlocks(1, network());
    const reply = await pay(0);
    expect(reply['error']).toBeUndefined();
    expect(devnet.chain.mempool()).toHaveLength(1);
  });
});

describe('send faults of the control API', () => {
  let devnet: Devnet;
  const pay = (extra: string) =>
    call(devnet, 'sendTransaction', {
      transfers: [{ address: devnet.wallet.addresses[1]!, amount: 3_000_000 }],
      changeAddress: devnet.walletAddress,
      fee: 80000,
      anonymity: 2,
      extra,
    });

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  test('refuseSends(2): the next two sends are refused like on a young chain, the third goes out', async () => {
    const before = await available(devnet);
    devnet.control.refuseSends(2);
    expect((await pay('aa01'))['error']).toEqual(MIXIN_TOO_BIG);
    expect((await pay('aa02'))['error']).toEqual(MIXIN_TOO_BIG);
    expect(devnet.chain.mempool()).toHaveLength(0);
    expect(await available(devnet)).toBe(before);
    expect((await pay('aa03'))['result']).toBeDefined();
    devnet.control.mineBlocks(1);
  });

  test('failRelay: the send answers 5 "Internal node error"; its record stays, FAILED, listed nowhere', async () => {
    const before = await available(devnet);
    devnet.control.failRelay(1);
    expect((await pay('bb01'))['error']).toEqual(NODE_REFUSED);
    expect(devnet.chain.mempool()).toHaveLength(0);
    // The inputs are free again: nothing left the wallet.
    expect(await available(devnet)).toBe(before);

    const hash = devnet.wallet.builtTransactionHashes().at(-1)!;
    const record = await recordOf(devnet, hash);
    expect(record).toMatchObject({ state: 1, blockIndex: 4294967295, fee: 80000 });
    expect(record.extra).toMatch(/bb01$/);
    expect(record.transfers).toContainEqual(
      expect.objectContaining({ address: devnet.wallet.addresses[1], amount: 3_000_000, type: 0 }),
    );
    devnet.control.mineBlocks(1);
    expect(await listedHashes(devnet)).not.toContain(hash);
    expect(await unconfirmedHashes(devnet)).not.toContain(hash);
    expect((await recordOf(devnet, hash)).state).toBe(1);

    // The next send relays normally.
    const next = (await pay('bb02'))['result'] as { transactionHash: string };
    expect((await recordOf(devnet, next.transactionHash)).state).toBe(0);
    devnet.control.mineBlocks(1);
  });

  test("failRelay(…, 'unreachable'): 7 \"Can't connect to daemon\", the record FAILED", async () => {
    devnet.control.failRelay(1, 'unreachable');
    expect((await pay('cc01'))['error']).toEqual(NODE_UNREACHABLE);
    expect((await recordOf(devnet, devnet.wallet.builtTransactionHashes().at(-1)!)).state).toBe(1);
  });

  test('a sent transaction dropped from the daemon pool turns CANCELLED (2) and frees its inputs', async () => {
    const before = await available(devnet);
    const { transactionHash } = (await pay('dd01'))['result'] as { transactionHash: string };
    expect(await unconfirmedHashes(devnet)).toEqual([transactionHash]);
    expect(devnet.control.dropFromMempool(transactionHash)).toBe(true);
    expect(await recordOf(devnet, transactionHash)).toMatchObject({ state: 2, blockIndex: 4294967295 });
    expect(await unconfirmedHashes(devnet)).toEqual([]);
    expect(await available(devnet)).toBe(before);
    devnet.control.mineBlocks(1);
    expect(await listedHashes(devnet)).not.toContain(transactionHash);
  });

  test('a delayed transaction is CREATED (3) until sent; deleted, it is CANCELLED (2)', async () => {
    const create = async () =>
      (
        (
          await call(devnet, 'createDelayedTransaction', {
            transfers: [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }],
            changeAddress: devnet.walletAddress,
            fee: 80000,
            anonymity: 2,
          })
        )['result'] as { transactionHash: string }
      ).transactionHash;
    const kept = await create();
    expect((await recordOf(devnet, kept)).state).toBe(3);
    expect((await call(devnet, 'deleteDelayedTransaction', { transactionHash: kept }))['result']).toEqual({});
    expect((await recordOf(devnet, kept)).state).toBe(2);
    const delayed = (await call(devnet, 'getDelayedTransactionHashes', {}))['result'] as {
      transactionHashes: string[];
    };
    expect(delayed.transactionHashes).toEqual([]);
    expect((await call(devnet, 'sendDelayedTransaction', { transactionHash: kept }))['error']).toMatchObject({
      data: { application_code: 29 },
    });

    const sent = await create();
    await call(devnet, 'sendDelayedTransaction', { transactionHash: sent });
    expect((await recordOf(devnet, sent)).state).toBe(0);
  });
});
