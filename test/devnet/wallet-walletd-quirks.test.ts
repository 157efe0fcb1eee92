import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { decodeAddress, encodeIntegratedAddress } from '../../src/fuego/address.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

/**
 * Two walletd 1.9.3 behaviours the payout code depends on (its sendTransaction source): an integrated
 * destination is "Invalid address", and `extra` is ignored when `paymentId` is given.
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

  test("with a paymentId the extra is built from it alone; the caller's extra is dropped", async () => {
    const reply = await send({
      transfers: [{ address: devnet.wallet.addresses[1]!, amount: 1_000_000 }],
      paymentId: 'ef'.repeat(32),
      extra: 'deadbeef',
    });
    const hash = (reply['result'] as { transactionHash: string }).transactionHash;
    const record = (await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash }))[
      'result'
    ] as {
      transaction: { extra: string; paymentId: string };
    };
    expect(record.transaction.paymentId).toBe('ef'.repeat(32));
    expect(record.transaction.extra).not.toContain('deadbeef');
  });
});
