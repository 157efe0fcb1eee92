import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { decodeAddress, encodeIntegratedAddress } from '../../src/fuego/address.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * walletd 1.9.3 behaviours the payout code depends on (its sendTransaction source): an integrated
 * destination is "Invalid address", `extra` and `paymentId` do not go together, `anonymity` is
 * ignored (always 2 decoys), and source addresses are read from `addresses` only.
 */
describe('devnet walletd quirks', () => {
  let devnet: Devnet;

  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });

  afterAll(async () => {
    await devnet.stop();
  });

  const send = (params: Record<string, unknown>) =>
    jsonRpc(devnet.walletUrl, 'sendTransaction', {
      changeAddress: devnet.walletAddress,
      fee: 80000,
      anonymity: 2,
      ...params,
    });

  test('an integrated destination address is refused as "Invalid address" (11)', async () => {
    const keys = decodeAddress(devnet.wallet.addresses[1]!);
    const integrated = encodeIntegratedAddress({
      spendPublicKey: keys.spendPublicKey,
      viewPublicKey: keys.viewPublicKey,
      paymentId: 'cd'.repeat(32),
    });
    const reply = await send({ transfers: [{ address: integrated, amount: 1_000_000 }] });
    expect(reply['error']).toEqual({
      code: -32000,
      data: { application_code: 11 },
      message: 'Invalid address',
    });
  });

  test("a paymentId becomes the extra; `extra` next to it is an invalid request (walletd's serializer)", async () => {
    const transfers = [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }];
    const both = await send({ transfers, paymentId: 'ef'.repeat(32), extra: 'deadbeef' });
    expect(both['error']).toEqual({ code: -32600, message: 'Invalid Request' });
    expect(devnet.chain.mempool()).toHaveLength(0);

    const reply = await send({ transfers, paymentId: 'ef'.repeat(32) });
    const hash = (reply['result'] as { transactionHash: string }).transactionHash;
    const record = (await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash }))[
      'result'
    ] as {
      transaction: { extra: string; paymentId: string };
    };
    expect(record.transaction.paymentId).toBe('ef'.repeat(32));
    expect(record.transaction.extra).toMatch(/^01[0-9a-f]{64}022100(ef){32}$/);
  });

  test('anonymity is required but ignored: 0 and 50 send like 2', async () => {
    for (const anonymity of [0, 50]) {
      const reply = await send({
        transfers: [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }],
        anonymity,
      });
      expect(reply['result'], `anonymity ${anonymity}`).toBeDefined();
    }
    const missing = await jsonRpc(devnet.walletUrl, 'sendTransaction', {
      transfers: [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }],
      changeAddress: devnet.walletAddress,
      fee: 80000,
    });
    expect(missing['error']).toEqual({ code: -32600, message: 'Invalid Request' });
  });

  test("the source addresses are `addresses`; the interface document's `sourceAddresses` is ignored", async () => {
    // A new address holds nothing: as a source it is "Insufficient funds"; named the other way it
    // is not read, and the wallet pays from its other addresses.
    devnet.control.mineBlocks(10); // the change of the sends above becomes spendable
    const empty = ((await jsonRpc(devnet.walletUrl, 'createAddress', {}))['result'] as { address: string })
      .address;
    const transfers = [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }];
    const fromEmpty = await send({ transfers, addresses: [empty] });
    expect((fromEmpty['error'] as { data: unknown }).data).toEqual({ application_code: 14 });
    expect((await send({ transfers, sourceAddresses: [empty] }))['result']).toBeDefined();
  });
});
