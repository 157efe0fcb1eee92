import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../src/rpc/rpc-error.js';
import {
  UNCONFIRMED_BLOCK_INDEX,
  WALLET_TRANSACTION_STATE,
  WalletClient,
  walletErrorKind,
} from '../../src/rpc/wallet-client.js';
import { type CannedReply, capturedReply, startReplayServer } from '../helpers/fixture-http-server.js';

const wallet = (name: string) => capturedReply(`walletd-rpc/${name}`);

/**
 * walletd's answer when its daemon does not take the relayed transaction (WalletService returns the
 * daemon connection's error: NodeErrors.h, INTERNAL_NODE_ERROR); not captured.
 */
const nodeRefused = {
  status: 200,
  body: '{"error":{"code":-32000,"data":{"application_code":5},"message":"Internal node error"},"id":1,"jsonrpc":"2.0"}',
};

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
      if (amount === 3) return wallet('73-sendTransaction-young-chain-anonymity-0');
      if (amount === 4) return nodeRefused;
      return wallet('42-sendTransaction-fee-below-minimum-fee1');
    }
    // threshold 1: an answer slower than the client's timeout.
    case 'estimateFusion':
      return params['threshold'] === 1
        ? { ...wallet('71-estimateFusion'), delayMs: 400 }
        : wallet('71-estimateFusion');
    case 'sendFusionTransaction':
      return params['threshold'] === 1
        ? { ...wallet('72-sendFusionTransaction'), delayMs: 400 }
        : wallet('72-sendFusionTransaction');
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

  it('names the source addresses `addresses`, the field walletd reads', async () => {
    await client.sendTransaction({
      transfers: [{ address: 'fireA', amountAtomic: 10_000_000n }],
      changeAddress: 'fireChange',
      feeAtomic: 80_000n,
      anonymity: 2,
      sourceAddresses: ['fireSource'],
    });
    const body = JSON.parse(server.requests.at(-1)?.body ?? '{}') as { params: Record<string, unknown> };
    expect(body.params['addresses']).toEqual(['fireSource']);
    expect(body.params).not.toHaveProperty('sourceAddresses');
  });

  it('estimates and sends a fusion with the fields walletd reads', async () => {
    expect(await client.estimateFusion({ thresholdAtomic: 1_000_000_000n })).toEqual({
      fusionReadyCount: 261,
      totalOutputCount: 336,
    });
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}')).toMatchObject({
      method: 'estimateFusion',
      params: { threshold: 1_000_000_000 },
    });
    await client.estimateFusion({ thresholdAtomic: 1_000_000_000n, addresses: ['fireA'] });
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}').params).toEqual({
      threshold: 1_000_000_000,
      addresses: ['fireA'],
    });

    const sent = await client.sendFusionTransaction({ thresholdAtomic: 1_000_000_000n, anonymity: 2 });
    expect(sent.transactionHash).toBe('bcb18ff286b06f19b60be565788b7bdc413ee6fb44f031d63e46c6a50554c1f5');
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}')).toMatchObject({
      method: 'sendFusionTransaction',
      params: { threshold: 1_000_000_000, anonymity: 2 },
    });
    await client.sendFusionTransaction({
      thresholdAtomic: 1_000_000_000n,
      anonymity: 0,
      addresses: ['fireA'],
      destinationAddress: 'fireB',
    });
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}').params).toEqual({
      threshold: 1_000_000_000,
      anonymity: 0,
      addresses: ['fireA'],
      destinationAddress: 'fireB',
    });
  });

  it('never retries a fusion send; retries the estimate, a read', async () => {
    const impatient = new WalletClient({
      host: '127.0.0.1',
      port: server.port,
      timeoutMs: 150,
      retries: 2,
      retryBaseDelayMs: 10,
    });
    try {
      const before = server.requests.length;
      await expect(
        impatient.sendFusionTransaction({ thresholdAtomic: 1n, anonymity: 2 }),
      ).rejects.toBeInstanceOf(RpcError);
      expect(server.requests.length).toBe(before + 1);
      const beforeEstimate = server.requests.length;
      await expect(impatient.estimateFusion({ thresholdAtomic: 1n })).rejects.toBeInstanceOf(RpcError);
      expect(server.requests.length).toBe(beforeEstimate + 3);
    } finally {
      impatient.close();
    }
  });

  it("tells a young chain's refusal and a relay the daemon refused from other errors", async () => {
    const send = (amount: bigint) =>
      client
        .sendTransaction({
          transfers: [{ address: 'a', amountAtomic: amount }],
          changeAddress: 'c',
          feeAtomic: 80_000n,
          anonymity: 0,
        })
        .catch((e: unknown) => e);
    expect(walletErrorKind(await send(3n))).toBe('MIXIN_TOO_BIG');
    // Code 5 both ways: only the message tells walletd's own internal error from the daemon's refusal.
    expect(walletErrorKind(await send(4n))).toBe('NODE_REFUSED');
  });

  it('names the transaction states', () => {
    expect(WALLET_TRANSACTION_STATE).toEqual({
      SUCCEEDED: 0,
      FAILED: 1,
      CANCELLED: 2,
      CREATED: 3,
      DELETED: 4,
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
