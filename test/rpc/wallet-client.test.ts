import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../src/rpc/rpc-error.js';
import { UNCONFIRMED_BLOCK_INDEX, WalletClient, walletErrorKind } from '../../src/rpc/wallet-client.js';
import { type CannedReply, capturedReply, startReplayServer } from '../helpers/fixture-http-server.js';

const wallet = (name: string) => capturedReply(`walletd-rpc/${name}`);

/** Answers each method with a captured real walletd reply; `sendTransaction` by its first amount. */
function route(json: unknown): CannedReply {
  const { method, params } = json as { method: string; params: Record<string, unknown> };
  switch (method) {
    case 'getStatus':
      return wallet('01-getStatus');
    case 'getBalance':
      return params['address'] === 'unknown'
        ? wallet('25-getBalance-valid-address-not-in-container')
        : wallet('40-getBalance-some-unlocked');
    case 'getAddresses':
      return wallet('04-getAddresses-after-create');
    case 'getTransactions':
      return wallet('16-getTransactions-by-range');
    case 'getTransaction':
      return wallet('45-getTransaction-sent-with-fee1');
    case 'getUnconfirmedTransactionHashes':
      return wallet('43-getUnconfirmedTransactionHashes');
    case 'sendTransaction': {
      const amount = (params['transfers'] as Array<{ amount: number }>)[0]?.amount;
      if (amount === 1) return wallet('30-sendTransaction-insufficient-funds-with-change');
      if (amount === 2) return wallet('38-sendTransaction-change-address-not-in-container');
      return wallet('42-sendTransaction-fee-below-minimum-fee1');
    }
    default:
      return wallet('19-unknown-method');
  }
}

describe('WalletClient against captured walletd 1.9.3 replies', () => {
  let server: Awaited<ReturnType<typeof startReplayServer>>;
  let client: WalletClient;

  beforeAll(async () => {
    server = await startReplayServer((_request, json) => route(json));
    client = new WalletClient({ host: '127.0.0.1', port: server.port, timeoutMs: 2_000, retries: 0 });
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('reads status, balance, addresses and transaction records', async () => {
    expect((await client.getStatus()).blockCount).toBe(13);
    expect(await client.getBalance()).toEqual({
      availableBalance: 1220692824,
      lockedAmount: 5492881154,
      lockedDepositBalance: 0,
      unlockedDepositBalance: 0,
    });
    expect(await client.getAddresses()).toHaveLength(2);
    const items = await client.getTransactions({ firstBlockIndex: 0, blockCount: 100 });
    expect(items[0]?.transactions[0]?.isBase).toBe(true);
    const sent = await client.getTransaction('4c'.repeat(32));
    expect(sent.blockIndex).toBe(UNCONFIRMED_BLOCK_INDEX);
    expect(sent.fee).toBe(80000);
    expect(sent.extra).toMatch(/^01/);
    expect(await client.getUnconfirmedTransactionHashes()).toHaveLength(1);
  });

  it('sends the transfer with every field the real walletd requires', async () => {
    const reply = await client.sendTransaction({
      transfers: [{ address: 'fireA', amountAtomic: 10_000_000n }],
      changeAddress: 'fireChange',
      feeAtomic: 80_000n,
      anonymity: 2,
      extraHex: 'de00ad',
    });
    expect(reply.transactionHash).toMatch(/^[0-9a-f]{64}$/);
    const body = JSON.parse(server.requests.at(-1)?.body ?? '{}') as { params: Record<string, unknown> };
    expect(body.params).toMatchObject({
      transfers: [{ address: 'fireA', amount: 10_000_000 }],
      changeAddress: 'fireChange',
      fee: 80000,
      anonymity: 2,
      extra: 'de00ad',
    });
  });

  it('identifies walletd errors by code and message together', async () => {
    const insufficient = await client
      .sendTransaction({
        transfers: [{ address: 'a', amountAtomic: 1n }],
        changeAddress: 'c',
        feeAtomic: 80_000n,
        anonymity: 2,
      })
      .catch((e: unknown) => e);
    expect(insufficient).toBeInstanceOf(RpcError);
    expect(walletErrorKind(insufficient)).toBe('INSUFFICIENT_FUNDS');
    const changeMissing = await client
      .sendTransaction({
        transfers: [{ address: 'a', amountAtomic: 2n }],
        changeAddress: 'c',
        feeAtomic: 80_000n,
        anonymity: 2,
      })
      .catch((e: unknown) => e);
    expect(walletErrorKind(changeMissing)).toBe('CHANGE_ADDRESS_NOT_FOUND');
    const notInContainer = await client.getBalance('unknown').catch((e: unknown) => e);
    expect(walletErrorKind(notInContainer)).toBe('WALLET_NOT_FOUND');
  });

  it('refuses to send an amount that a JSON number cannot carry exactly, before anything goes out', async () => {
    const before = server.requests.length;
    const error = await client
      .sendTransaction({
        transfers: [{ address: 'a', amountAtomic: 2n ** 60n }],
        changeAddress: 'c',
        feeAtomic: 80_000n,
        anonymity: 2,
      })
      .catch((e: unknown) => e);
    expect((error as RpcError).code).toBe('RPC_BAD_REQUEST');
    expect(server.requests.length).toBe(before);
  });
});
