import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { Devnet } from '../../src/devnet/devnet.js';
import { jsonRpc, sendToSecondAddress, startTestDevnet } from './devnet-test-helpers.js';

/** Runs `body` with a fresh data dir, removed after. */
async function withDataDir(body: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'fuego-devnet-'));
  try {
    await body(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A devnet restarted on `dataDir`, stopped after `body`. */
async function restarted(dataDir: string, body: (devnet: Devnet) => Promise<void>): Promise<void> {
  const devnet = await startTestDevnet({ dataDir, wallet: { addressCount: 2 } });
  try {
    await body(devnet);
  } finally {
    await devnet.stop();
  }
}

const headerByHash = async (devnet: Devnet, hash: string) =>
  (
    (await jsonRpc(devnet.daemonUrl, 'getblockheaderbyhash', { hash }))['result'] as {
      block_header: { orphan_status: boolean; height: number };
    }
  ).block_header;
const altBlockHashes = async (devnet: Devnet) =>
  (
    (await jsonRpc(devnet.daemonUrl, 'getaltblockslist', {}))['result'] as { alt_blocks: { hash: string }[] }
  ).alt_blocks.map((block) => block.hash);

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

test('after a restart the daemon has forgotten its alternative blocks, as fuegod (it keeps them in memory only), but the rest of the network has not: a heavier branch it builds on one still takes over', async () => {
  await withDataDir(async (dataDir) => {
    const first = await startTestDevnet({ dataDir, wallet: { addressCount: 2 } });
    // Blocks of two difficulties: the chain's weight must come back as it was, not at the last setting.
    first.control.setDifficulty(7);
    const txHash = await sendToSecondAddress(first);
    const [mined] = first.control.mineBlocks(1);
    // A peer's block on the same parent, carrying the same transaction: as heavy, so kept aside.
    const parentId = first.chain.blockAt(mined!.height - 1)!.id;
    const peer = first.control.mineOnBlock(parentId, 1);
    const alternative = peer.mined[0]!;
    expect(peer.orphaned).toEqual([]);
    expect(alternative.orphaned).toBe(true);
    first.control.setDifficulty(3);
    const weight = first.chain.tip.cumulativeDifficulty;
    await first.stop();

    await restarted(dataDir, async (second) => {
      expect(second.chain.tip.id).toBe(mined!.id);
      expect(second.chain.tip.cumulativeDifficulty).toBe(weight);
      // fuegod stores its main chain, not m_alternative_chains: the stale block is unknown now.
      const byHash = await jsonRpc(second.daemonUrl, 'getblockheaderbyhash', { hash: alternative.id });
      expect(byHash['error']).toBeDefined();
      expect(await altBlockHashes(second)).toEqual([]);
      // The rest of the network builds on it: the daemon gets the branch from its peers and switches.
      const { orphaned } = second.control.mineOnBlock(alternative.id, 1);
      expect(orphaned.map((block) => block.id)).toEqual([mined!.id]);
      expect(second.chain.blockAt(mined!.height)!.id).toBe(alternative.id);
      expect(second.chain.findTransaction(txHash)?.block?.id).toBe(alternative.id);
      expect(await headerByHash(second, mined!.id)).toMatchObject({ orphan_status: true });
    });
  });
});

test('the branch the last reorg took off is still there to reorg back to after a restart', async () => {
  await withDataDir(async (dataDir) => {
    const first = await startTestDevnet({ dataDir, wallet: { addressCount: 2 } });
    const { orphaned } = first.control.reorg(2);
    await first.stop();

    await restarted(dataDir, async (second) => {
      const back = second.control.reorgBack();
      expect(back.restored.map((block) => block.id)).toEqual(orphaned.map((block) => block.id));
      expect(second.chain.blockAt(orphaned[0]!.height)!.id).toBe(orphaned[0]!.id);
    });
  });
});
