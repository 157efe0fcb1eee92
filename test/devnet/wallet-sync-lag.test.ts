import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Devnet } from '../../src/devnet/devnet.js';
import { parseDevnetConfig } from '../../src/devnet/devnet-config.js';
import { keyPairFromSeed } from '../../src/devnet/wallet/ed25519-keys.js';
import { encodeAddress } from '../../src/fuego/address.js';
import { jsonRpc, send, startTestDevnet, testHasher } from './devnet-test-helpers.js';

const UNCONFIRMED = 4294967295;
const COIN = 10_000_000;

/** A standard address that is not the devnet wallet's (blocks mined to it pay the wallet nothing). */
function foreignAddress(): string {
  const spend = keyPairFromSeed(new TextEncoder().encode('sync-lag/foreign/spend'));
  const view = keyPairFromSeed(new TextEncoder().encode('sync-lag/foreign/view'));
  return encodeAddress({ spendPublicKey: spend.publicKey, viewPublicKey: view.publicKey });
}

async function call<T>(devnet: Devnet, method: string, params: unknown = {}): Promise<T> {
  const reply = await jsonRpc(devnet.walletUrl, method, params);
  if (reply['error'] !== undefined) throw new Error(`${method}: ${JSON.stringify(reply['error'])}`);
  return reply['result'] as T;
}

interface Status {
  readonly blockCount: number;
  readonly knownBlockCount: number;
  readonly lastBlockHash: string;
}
interface Balance {
  readonly availableBalance: number;
  readonly lockedAmount: number;
}
interface TxRecord {
  readonly blockIndex: number;
  readonly confirmations: number;
  readonly state: number;
}

/** A describe block's devnet, started once for the block and stopped after it. */
function useDevnet(start: () => Promise<Devnet>): () => Devnet {
  let devnet: Devnet | undefined;
  beforeAll(async () => {
    devnet = await start();
  });
  afterAll(async () => {
    await devnet?.stop();
  });
  return () => devnet!;
}

const status = (devnet: Devnet) => call<Status>(devnet, 'getStatus');
const balanceOf = (devnet: Devnet, address: string) => call<Balance>(devnet, 'getBalance', { address });
const record = async (devnet: Devnet, hash: string) =>
  (await call<{ transaction: TxRecord }>(devnet, 'getTransaction', { transactionHash: hash })).transaction;

function sendParams(devnet: Devnet, amount: number): Record<string, unknown> {
  return {
    transfers: [{ address: devnet.wallet.addresses[1]!, amount }],
    changeAddress: devnet.walletAddress,
    fee: 80000,
    anonymity: 2,
  };
}

describe('devnet walletd: a wallet scan that trails the daemon', () => {
  test('wallet.syncLagBlocks and wallet.scanBlocksPerSecond default to 0 and refuse bad values, naming the key', () => {
    expect(parseDevnetConfig({}).wallet).toMatchObject({ syncLagBlocks: 0, scanBlocksPerSecond: 0 });
    expect(() => parseDevnetConfig({ wallet: { syncLagBlocks: -1 } })).toThrow('wallet.syncLagBlocks');
    expect(() => parseDevnetConfig({ wallet: { syncLagBlocks: 1.5 } })).toThrow('wallet.syncLagBlocks');
    expect(() => parseDevnetConfig({ wallet: { scanBlocksPerSecond: -2 } })).toThrow(
      'wallet.scanBlocksPerSecond',
    );
  });

  describe('syncLagBlocks 3', () => {
    const devnetOf = useDevnet(() => startTestDevnet({ wallet: { syncLagBlocks: 3 } }));

    test('getStatus: blockCount and lastBlockHash are 3 blocks behind, knownBlockCount is the daemon height', async () => {
      const devnet = devnetOf();
      for (const mined of [0, 5]) {
        devnet.control.mineBlocks(mined, foreignAddress());
        const height = devnet.chain.height;
        expect(await status(devnet)).toMatchObject({
          blockCount: height - 3,
          knownBlockCount: height,
          lastBlockHash: devnet.chain.blockAt(height - 4)!.id,
        });
        const { blockHashes } = await call<{ blockHashes: string[] }>(devnet, 'getBlockHashes', {
          firstBlockIndex: 0,
          blockCount: 1_000,
        });
        expect(blockHashes).toHaveLength(height - 3);
      }
    });
  });

  describe('a held scan (lag 0 otherwise)', () => {
    const devnetOf = useDevnet(() => startTestDevnet({ wallet: { addressCount: 2 } }));
    afterEach(() => {
      devnetOf().control.releaseWalletScan();
    });

    test('a send mined in unscanned blocks stays unconfirmed, balances stay those of the scanned height, then all turns up on release', async () => {
      const devnet = devnetOf();
      const [first, second] = devnet.wallet.addresses as [string, string];
      const amount = COIN;
      const { transactionHash } = await call<{ transactionHash: string }>(
        devnet,
        'sendTransaction',
        sendParams(devnet, amount),
      );
      const afterSend = { first: await balanceOf(devnet, first), second: await balanceOf(devnet, second) };
      expect(afterSend.second).toMatchObject({ availableBalance: 0, lockedAmount: amount });

      devnet.control.holdWalletScan();
      const scannedTo = devnet.chain.height;
      const mined = devnet.control.mineBlocks(11, foreignAddress());
      const minedIn = mined[0]!;
      expect(minedIn.transactions.map((t) => t.hash)).toContain(transactionHash);
      const height = devnet.chain.height;

      expect(await status(devnet)).toMatchObject({ blockCount: scannedTo, knownBlockCount: height });
      // Mined 11 deep on the daemon; to the wallet still in the pool.
      expect(await record(devnet, transactionHash)).toMatchObject({
        blockIndex: UNCONFIRMED,
        confirmations: height + 1,
        state: 0,
      });
      const unconfirmed = await call<{ transactionHashes: string[] }>(
        devnet,
        'getUnconfirmedTransactionHashes',
      );
      expect(unconfirmed.transactionHashes).toContain(transactionHash);
      expect(await balanceOf(devnet, first)).toEqual(afterSend.first);
      expect(await balanceOf(devnet, second)).toEqual(afterSend.second);
      const listed = await call<{ items: { transactionHashes: string[] }[] }>(
        devnet,
        'getTransactionHashes',
        {
          firstBlockIndex: 0,
          blockCount: 1_000,
        },
      );
      expect(listed.items.flatMap((i) => i.transactionHashes)).not.toContain(transactionHash);
      const byUnscannedBlock = await jsonRpc(devnet.walletUrl, 'getTransactionHashes', {
        blockHash: minedIn.id,
        blockCount: 1,
      });
      expect(byUnscannedBlock['error']).toMatchObject({ code: -32000, data: { application_code: 29 } });

      // Stepped: the block with the send is scanned, the change is not 10 blocks deep to the wallet.
      devnet.control.advanceWalletScan(1);
      expect((await status(devnet)).blockCount).toBe(scannedTo + 1);
      expect(await record(devnet, transactionHash)).toMatchObject({
        blockIndex: minedIn.height,
        confirmations: height - minedIn.height,
      });
      expect((await balanceOf(devnet, second)).availableBalance).toBe(0);

      devnet.control.releaseWalletScan();
      expect(await status(devnet)).toMatchObject({ blockCount: height, knownBlockCount: height });
      expect(await balanceOf(devnet, second)).toMatchObject({ availableBalance: amount, lockedAmount: 0 });
      expect((await balanceOf(devnet, first)).lockedAmount).toBeLessThan(afterSend.first.lockedAmount);
    });

    test('sends while behind are built from what is unlocked at the scanned height (no 41), and pay more once it catches up', async () => {
      const devnet = devnetOf();
      const first = devnet.walletAddress;
      const before = await balanceOf(devnet, first);
      // Most of the wallet's money is in one output: its change is locked again for 10 blocks.
      const spend = Math.floor(before.availableBalance / 2);
      await call(devnet, 'sendTransaction', sendParams(devnet, spend));
      devnet.control.holdWalletScan();
      devnet.control.mineBlocks(11, foreignAddress());
      const held = await balanceOf(devnet, first);
      expect(held.availableBalance).toBeLessThan(spend);

      const refused = await jsonRpc(devnet.walletUrl, 'sendTransaction', sendParams(devnet, spend));
      expect(refused['error']).toEqual({
        code: -32000,
        data: { application_code: 14 },
        message: 'Insufficient funds',
      });
      devnet.control.releaseWalletScan();
      expect((await balanceOf(devnet, first)).availableBalance).toBeGreaterThan(spend);
      await call(devnet, 'sendTransaction', sendParams(devnet, spend));
    });
  });

  describe('a daemon behind its peers: 41 "Daemon is not synchronized"', () => {
    const devnetOf = useDevnet(() => startTestDevnet({ wallet: { addressCount: 2 } }));
    afterEach(() => {
      devnetOf().control.setDaemonKnownBlocksAhead(0);
    });

    test('one block behind: sends go through, knownBlockCount counts the peers', async () => {
      const devnet = devnetOf();
      devnet.control.setDaemonKnownBlocksAhead(1);
      expect(await status(devnet)).toMatchObject({
        blockCount: devnet.chain.height,
        knownBlockCount: devnet.chain.height + 1,
      });
      await call(devnet, 'sendTransaction', sendParams(devnet, COIN));
    });

    test('two behind: sendTransaction, createDeposit, estimateFusion, sendFusionTransaction answer 41 as walletd formats it; reads and other calls do not', async () => {
      const devnet = devnetOf();
      devnet.control.setDaemonKnownBlocksAhead(2);
      const request = (method: string, params: unknown) =>
        JSON.stringify({ jsonrpc: '2.0', id: 'lag', method, params });
      const refusal =
        '{"error":{"code":-32000,"data":{"application_code":41},"message":"Daemon is not synchronized"},"id":"lag","jsonrpc":"2.0"}';
      const refusedCalls: [string, unknown][] = [
        ['sendTransaction', sendParams(devnet, COIN)],
        ['createDeposit', { amount: 8_000_000_000, term: 16440, sourceAddress: devnet.walletAddress }],
        ['estimateFusion', { threshold: 1_000_000 }],
        ['sendFusionTransaction', { threshold: 1_000_000, anonymity: 0 }],
      ];
      for (const [method, params] of refusedCalls) {
        const reply = await send(`${devnet.walletUrl}/json_rpc`, 'POST', request(method, params));
        expect({ method, status: reply.status, body: reply.text }).toEqual({
          method,
          status: 200,
          body: refusal,
        });
      }
      // walletd's request parser still answers first.
      const { fee: _fee, ...withoutFee } = sendParams(devnet, COIN);
      expect((await jsonRpc(devnet.walletUrl, 'sendTransaction', withoutFee))['error']).toMatchObject({
        code: -32600,
      });
      expect(await status(devnet)).toMatchObject({ knownBlockCount: devnet.chain.height + 2 });
      await call(devnet, 'getBalance');
      const delayed = await call<{ transactionHash: string }>(
        devnet,
        'createDelayedTransaction',
        sendParams(devnet, COIN),
      );
      await call(devnet, 'deleteDelayedTransaction', delayed);

      devnet.control.setDaemonKnownBlocksAhead(0);
      devnet.control.mineBlocks(11, foreignAddress());
      await call(devnet, 'sendTransaction', sendParams(devnet, COIN));
    });
  });

  describe('scanBlocksPerSecond 2 (an injected clock)', () => {
    let nowMs = Date.now();
    const devnetOf = useDevnet(() =>
      Devnet.start(
        { daemon: { port: 0 }, wallet: { port: 0, scanBlocksPerSecond: 2 } },
        { hasher: testHasher(), now: () => nowMs },
      ),
    );

    test('starts synced, trails a burst of blocks by the rate, can be held and stepped', async () => {
      const devnet = devnetOf();
      const start = devnet.chain.height;
      expect((await status(devnet)).blockCount).toBe(start);
      devnet.control.mineBlocks(10, foreignAddress());
      expect((await status(devnet)).blockCount).toBe(start);
      nowMs += 1_000;
      expect((await status(devnet)).blockCount).toBe(start + 2);
      nowMs += 1_500;
      expect((await status(devnet)).blockCount).toBe(start + 5);

      devnet.control.holdWalletScan();
      nowMs += 60_000;
      expect((await status(devnet)).blockCount).toBe(start + 5);
      devnet.control.advanceWalletScan(2);
      expect((await status(devnet)).blockCount).toBe(start + 7);
      devnet.control.releaseWalletScan();
      nowMs += 500;
      expect((await status(devnet)).blockCount).toBe(start + 8);
      nowMs += 10_000;
      expect(await status(devnet)).toMatchObject({ blockCount: start + 10, knownBlockCount: start + 10 });
    });
  });
});
