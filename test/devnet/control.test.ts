import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, send, startTestDevnet } from './devnet-test-helpers.js';

describe('devnet control', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({ wallet: { addressCount: 2 } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const header = async (height: number) =>
    (
      (await jsonRpc(devnet.daemonUrl, 'getblockheaderbyheight', { height }))['result'] as {
        block_header: Record<string, unknown>;
      }
    ).block_header;

  test('reorg: orphaned blocks keep their hash with orphan_status true, the height gets a new block', async () => {
    devnet.control.mineBlocks(2);
    const height = devnet.chain.height - 1;
    const before = await header(height);
    const { orphaned, mined } = devnet.control.reorg(2);
    expect(orphaned.map((b) => b.id)).toContain(before['hash']);
    expect(mined).toHaveLength(3);
    const after = await header(height);
    expect(after['hash']).not.toBe(before['hash']);
    expect(after['orphan_status']).toBe(false);
    const old = (await jsonRpc(devnet.daemonUrl, 'getblockheaderbyhash', { hash: before['hash'] }))[
      'result'
    ] as {
      block_header: Record<string, unknown>;
    };
    expect(old.block_header['orphan_status']).toBe(true);

    devnet.control.reorg(3, { replacementBlocks: 0 });
    const shrunk = await jsonRpc(devnet.daemonUrl, 'getblockheaderbyheight', { height: devnet.chain.height });
    expect((shrunk['error'] as { code: number }).code).toBe(-2);
  });

  test('reorgBack: the orphaned branch returns at its own heights, the replacement is orphaned, the restored branch is longest', async () => {
    const [original] = devnet.control.mineBlocks(1);
    const height = original!.height;
    const { mined: replacement } = devnet.control.reorg(1);
    expect((await header(height))['hash']).not.toBe(original!.id);

    const back = devnet.control.reorgBack();
    expect(back.restored.map((b) => b.id)).toEqual([original!.id]);
    expect(back.orphaned.map((b) => b.id)).toEqual(replacement.map((b) => b.id));
    // One restored block must outgrow the two that replaced it.
    expect(back.mined).toHaveLength(2);
    expect(devnet.chain.height).toBe(height + 3);
    expect(await header(height)).toMatchObject({ hash: original!.id, orphan_status: false, depth: 2 });
    for (const block of replacement) {
      const old = (await jsonRpc(devnet.daemonUrl, 'getblockheaderbyhash', { hash: block.id }))['result'] as {
        block_header: Record<string, unknown>;
      };
      expect(old.block_header['orphan_status']).toBe(true);
    }
    // The new tip builds on the restored block.
    expect((await header(height + 1))['prev_hash']).toBe(original!.id);
    // And back once more: the replacement returns.
    const again = devnet.control.reorgBack({ extraBlocks: 0 });
    expect(again.restored.map((b) => b.id)).toEqual(replacement.map((b) => b.id));
    expect((await header(height))['hash']).toBe(replacement[0]!.id);
  });

  test('busy: getinfo says BUSY, JSON-RPC answers -9', async () => {
    devnet.control.setDaemonBusy(true);
    expect(JSON.parse((await send(`${devnet.daemonUrl}/getinfo`, 'GET')).text).status).toBe('BUSY');
    expect((await jsonRpc(devnet.daemonUrl, 'getblockcount', {}))['error']).toEqual({
      code: -9,
      message: 'Core is busy',
    });
    devnet.control.setDaemonBusy(false);
    expect((await jsonRpc(devnet.daemonUrl, 'getblockcount', {}))['result']).toBeDefined();
  });

  test('peers and a longer chain known from them: what getinfo reports, the chain unchanged', async () => {
    const getinfo = async () =>
      JSON.parse((await send(`${devnet.daemonUrl}/getinfo`, 'GET')).text) as Record<string, unknown>;
    const height = devnet.chain.height;
    // By default an isolated daemon: no peers, nothing known beyond its tip.
    expect(await getinfo()).toMatchObject({
      height,
      outgoing_connections_count: 0,
      incoming_connections_count: 0,
      connections: [],
      last_known_block_index: height - 1,
    });
    devnet.control.setDaemonPeers(2, 1);
    devnet.control.setDaemonKnownBlocksAhead(40);
    expect(await getinfo()).toMatchObject({
      height,
      outgoing_connections_count: 2,
      incoming_connections_count: 1,
      connections: ['192.0.2.1:10808', '192.0.2.2:10808', '192.0.2.3:10808'],
      last_known_block_index: height - 1 + 40,
    });
    expect(devnet.chain.height).toBe(height);
    expect(() => devnet.control.setDaemonPeers(-1)).toThrow(RangeError);
    expect(() => devnet.control.setDaemonKnownBlocksAhead(0.5)).toThrow(RangeError);
    devnet.control.setDaemonPeers(0);
    devnet.control.setDaemonKnownBlocksAhead(0);
    expect(await getinfo()).toMatchObject({
      outgoing_connections_count: 0,
      last_known_block_index: height - 1,
    });
  });

  test('unreachable and slow daemon', async () => {
    await devnet.control.setDaemonAvailability({ kind: 'unreachable' });
    await expect(fetch(`${devnet.daemonUrl}/getinfo`)).rejects.toThrow();
    await devnet.control.setDaemonAvailability({ kind: 'slow', delayMs: 150 });
    const started = Date.now();
    expect((await send(`${devnet.daemonUrl}/getheight`, 'GET')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await devnet.control.setDaemonAvailability({ kind: 'up' });
  });

  test('difficulty can be set', async () => {
    devnet.control.setDifficulty(1234);
    const template = await jsonRpc(devnet.daemonUrl, 'getblocktemplate', {
      wallet_address: devnet.walletAddress,
      reserve_size: 8,
    });
    expect((template['result'] as { difficulty: number }).difficulty).toBe(1234);
  });

  const sendTo = (address: string, extra = '') =>
    jsonRpc(
      devnet.walletUrl,
      'sendTransaction',
      {
        transfers: [{ address, amount: 5_000_000 }],
        changeAddress: devnet.walletAddress,
        fee: 80000,
        anonymity: 2,
        extra,
      },
      1,
    );

  test('failAfterBroadcast (error): the call fails but the transaction is in the mempool and confirms', async () => {
    const [, b] = devnet.wallet.addresses;
    devnet.control.failAfterBroadcast(1, 'error');
    const reply = await sendTo(b!, 'cafe01');
    expect(reply['error']).toEqual({
      code: -32000,
      data: { application_code: 5 },
      message: 'Internal error occurred',
    });
    const pool = (await jsonRpc(devnet.daemonUrl, 'f_on_transactions_pool_json', {}))['result'] as {
      transactions: { hash: string; fee: number }[];
    };
    expect(pool.transactions).toHaveLength(1);
    expect(pool.transactions[0]!.fee).toBe(80000);
    const hash = pool.transactions[0]!.hash;
    const pending = (await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash }, 1))[
      'result'
    ] as {
      transaction: Record<string, unknown>;
    };
    expect(pending.transaction['blockIndex']).toBe(4294967295);
    expect(pending.transaction['extra']).toMatch(/cafe01$/);
    devnet.control.mineBlocks(1);
    const confirmed = (await jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: hash }, 1))[
      'result'
    ] as {
      transaction: Record<string, unknown>;
    };
    expect(confirmed.transaction['blockIndex']).toBe(devnet.chain.height - 1);
    expect(confirmed.transaction['confirmations']).toBe(1);
    const balance = (await jsonRpc(devnet.walletUrl, 'getBalance', { address: b }, 1))['result'] as Record<
      string,
      number
    >;
    expect(balance['lockedAmount']).toBe(5_000_000);
    // The next call behaves normally again.
    expect((await sendTo(b!))['result']).toBeDefined();
    devnet.control.mineBlocks(1);
  });

  test('failAfterBroadcast (drop): the connection closes, the transaction still goes out', async () => {
    const [, b] = devnet.wallet.addresses;
    devnet.control.failAfterBroadcast(1, 'drop');
    await expect(sendTo(b!)).rejects.toThrow();
    expect(devnet.chain.mempool()).toHaveLength(1);
    devnet.control.mineBlocks(1);
    expect(devnet.chain.mempool()).toHaveLength(0);
  });

  test('failReadsOfNextSend: the sent transaction cannot be read `count` times, then reads as usual', async () => {
    const [, b] = devnet.wallet.addresses;
    devnet.control.failReadsOfNextSend(2);
    const sent = (await sendTo(b!))['result'] as { transactionHash: string };
    const read = () =>
      jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash: sent.transactionHash }, 1);
    for (let i = 0; i < 2; i++) {
      expect((await read())['error']).toEqual({
        code: -32000,
        data: { application_code: 5 },
        message: 'Internal error occurred',
      });
    }
    const record = (await read())['result'] as { transaction: Record<string, unknown> };
    expect(record.transaction['fee']).toBe(80000);
    // Armed for one send only: the next one reads at once.
    const next = (await sendTo(b!))['result'] as { transactionHash: string };
    expect((await jsonRpc(devnet.walletUrl, 'getTransaction', next, 1))['result']).toBeDefined();
    devnet.control.mineBlocks(1);
  });

  test('forgetWalletTransaction: 29 "Object not found" and left out of the lists until the wallet rescans past its block; one dropped from the pool stays unknown', async () => {
    const [, b] = devnet.wallet.addresses;
    const sent = (await sendTo(b!))['result'] as { transactionHash: string };
    const hash = sent.transactionHash;
    const [block] = devnet.control.mineBlocks(1);
    const dropped = (await sendTo(b!))['result'] as { transactionHash: string };
    devnet.control.holdWalletScan();
    devnet.control.forgetWalletTransaction(hash);
    devnet.control.forgetWalletTransaction(dropped.transactionHash);
    expect(devnet.control.dropFromMempool(dropped.transactionHash)).toBe(true);
    const read = (transactionHash: string) =>
      jsonRpc(devnet.walletUrl, 'getTransaction', { transactionHash }, 1);
    const notFound = { code: -32000, data: { application_code: 29 }, message: 'Object not found' };
    expect((await read(hash))['error']).toEqual(notFound);
    const status = (await jsonRpc(devnet.walletUrl, 'getStatus', {}, 1))['result'] as Record<string, number>;
    // The rescan starts at the forgotten transaction's block.
    expect(status['blockCount']).toBe(block!.height);
    const listed = (
      (
        await jsonRpc(
          devnet.walletUrl,
          'getTransactionHashes',
          { firstBlockIndex: block!.height, blockCount: 1 },
          1,
        )
      )['result'] as { items: { transactionHashes: string[] }[] }
    ).items.flatMap((item) => item.transactionHashes);
    expect(listed).not.toContain(hash);

    devnet.control.releaseWalletScan();
    const found = (await read(hash))['result'] as { transaction: Record<string, unknown> };
    expect(found.transaction).toMatchObject({ blockIndex: block!.height, state: 0 });
    // In neither the chain nor the pool: the rescan cannot find it.
    expect((await read(dropped.transactionHash))['error']).toEqual(notFound);
  });

  test('coinbase to the wallet is locked until 60 deep, spendable after', async () => {
    const [, b] = devnet.wallet.addresses;
    const before = (await jsonRpc(devnet.walletUrl, 'getBalance', { address: b }, 1))['result'] as Record<
      string,
      number
    >;
    const [block] = devnet.control.mineBlocks(1, b);
    const reward = Number(block!.rewardAtomic);
    const locked = (await jsonRpc(devnet.walletUrl, 'getBalance', { address: b }, 1))['result'] as Record<
      string,
      number
    >;
    expect(locked['lockedAmount']).toBe(before['lockedAmount']! + reward);
    devnet.control.mineBlocks(60);
    const unlocked = (await jsonRpc(devnet.walletUrl, 'getBalance', { address: b }, 1))['result'] as Record<
      string,
      number
    >;
    expect(unlocked['availableBalance']).toBeGreaterThanOrEqual(reward);
  });
});
