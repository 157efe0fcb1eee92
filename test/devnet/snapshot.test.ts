import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

test('with a data dir, chain and balances survive a restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'fuego-devnet-'));
  try {
    const first = await startTestDevnet({ dataDir, wallet: { addressCount: 2 } });
    const [, b] = first.wallet.addresses;
    const sent = await jsonRpc(
      first.walletUrl,
      'sendTransaction',
      {
        transfers: [{ address: b, amount: 7_000_000 }],
        changeAddress: first.walletAddress,
        fee: 80000,
        anonymity: 2,
      },
      1,
    );
    expect(sent['result']).toBeDefined();
    first.control.mineBlocks(2);
    const balance = (await jsonRpc(first.walletUrl, 'getBalance', {}, 1))['result'];
    const tip = first.chain.tip.id;
    const height = first.chain.height;
    await first.stop();

    const second = await startTestDevnet({ dataDir, wallet: { addressCount: 2 } });
    try {
      expect(second.chain.height).toBe(height);
      expect(second.chain.tip.id).toBe(tip);
      expect((await jsonRpc(second.walletUrl, 'getBalance', {}, 1))['result']).toEqual(balance);
    } finally {
      await second.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
