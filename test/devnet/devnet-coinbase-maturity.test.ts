import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { validateBlock } from '../../src/devnet/chain/block-validator.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { parseDevnetConfig } from '../../src/devnet/devnet-config.js';
import { type Block, parseBlock, serializeBlock } from '../../src/fuego/block.js';
import { auxHeaderHash } from '../../src/fuego/block-hash.js';
import { hexToBytes } from '../../src/fuego/hex.js';
import { encodeMergeMiningTag } from '../../src/fuego/tx-extra.js';
import { jsonRpc, startTestDevnet } from './devnet-test-helpers.js';

type Balance = { availableBalance: number; lockedAmount: number };

const balanceOf = async (devnet: Devnet, address: string) =>
  (await jsonRpc(devnet.walletUrl, 'getBalance', { address }, 1))['result'] as Balance;

/** A template of `devnet` as the devnet's own miner would finish it (merge-mining tag filled), coinbase unlock at `unlockTime`. */
function minedBlockWithUnlock(devnet: Devnet, unlockTime: bigint): Uint8Array {
  const keys = devnet.wallet.keysOf(devnet.walletAddress);
  const template = parseBlock(devnet.chain.createTemplate(devnet.walletAddress, keys, 8).blob);
  const withUnlock: Block = { ...template, baseTransaction: { ...template.baseTransaction, unlockTime } };
  const parent = withUnlock.parentBlock!;
  return serializeBlock({
    ...withUnlock,
    parentBlock: {
      ...parent,
      baseTransaction: {
        ...parent.baseTransaction,
        extra: encodeMergeMiningTag(0, auxHeaderHash(withUnlock)),
      },
    },
  });
}

describe('coinbase maturity: Fuego 60 by default, a devnet setting', () => {
  test('defaults to 60 and refuses values below 1, naming the key', () => {
    expect(parseDevnetConfig({}).daemon.coinbaseMaturityBlocks).toBe(60);
    expect(() => parseDevnetConfig({ daemon: { coinbaseMaturityBlocks: 0 } })).toThrow(
      'daemon.coinbaseMaturityBlocks',
    );
  });

  describe('a devnet with maturity 10', () => {
    let devnet: Devnet;
    beforeAll(async () => {
      devnet = await startTestDevnet({ daemon: { coinbaseMaturityBlocks: 10 }, wallet: { addressCount: 2 } });
    });
    afterAll(async () => {
      await devnet.stop();
    });

    test('starts with the premine spendable after 11 blocks, not 61', async () => {
      expect(devnet.chain.height).toBe(12);
      expect((await balanceOf(devnet, devnet.walletAddress)).availableBalance).toBeGreaterThanOrEqual(
        10_000 * 10_000_000,
      );
    });

    test('templates carry unlock height + 10, and the validator holds blocks to it', async () => {
      const template = (
        await jsonRpc(devnet.daemonUrl, 'getblocktemplate', {
          wallet_address: devnet.walletAddress,
          reserve_size: 8,
        })
      )['result'] as { blocktemplate_blob: string; height: number };
      const block = parseBlock(hexToBytes(template.blocktemplate_blob));
      expect(block.baseTransaction.unlockTime).toBe(BigInt(template.height + 10));

      const height = BigInt(devnet.chain.height);
      const fuegos = validateBlock(
        minedBlockWithUnlock(devnet, height + 60n),
        devnet.chain.validationContext(),
        {
          checkPow: false,
        },
      );
      expect(fuegos.accepted ? 'accepted' : fuegos.code).toBe('COINBASE');
      const ours = validateBlock(
        minedBlockWithUnlock(devnet, height + 10n),
        devnet.chain.validationContext(),
        {
          checkPow: false,
        },
      );
      expect(ours.accepted).toBe(true);
    });

    test('a coinbase to the wallet stays locked until 10 deep, then is available', async () => {
      const b = devnet.wallet.addresses[1]!;
      const before = await balanceOf(devnet, b);
      const [block] = devnet.control.mineBlocks(1, b);
      const reward = Number(block!.rewardAtomic);
      devnet.control.mineBlocks(8);
      expect((await balanceOf(devnet, b)).lockedAmount).toBe(before.lockedAmount + reward);
      devnet.control.mineBlocks(1);
      const after = await balanceOf(devnet, b);
      expect(after.availableBalance).toBe(before.availableBalance + reward);
      expect(after.lockedAmount).toBe(before.lockedAmount);
    });
  });

  test('below 10, regular outputs still need 10 confirmations', async () => {
    const devnet = await startTestDevnet({
      daemon: { coinbaseMaturityBlocks: 3 },
      wallet: { addressCount: 2 },
    });
    try {
      const b = devnet.wallet.addresses[1]!;
      const sent = await jsonRpc(
        devnet.walletUrl,
        'sendTransaction',
        {
          transfers: [{ address: b, amount: 5_000_000 }],
          changeAddress: devnet.walletAddress,
          fee: 80000,
          anonymity: 2,
        },
        1,
      );
      expect(sent['result']).toBeDefined();
      devnet.control.mineBlocks(9);
      expect(await balanceOf(devnet, b)).toMatchObject({ availableBalance: 0, lockedAmount: 5_000_000 });
      devnet.control.mineBlocks(1);
      expect(await balanceOf(devnet, b)).toMatchObject({ availableBalance: 5_000_000, lockedAmount: 0 });
    } finally {
      await devnet.stop();
    }
  });

  test('a saved chain is not restored under another maturity: the error names the setting', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'fuego-devnet-maturity-'));
    try {
      const first = await startTestDevnet({ dataDir, daemon: { coinbaseMaturityBlocks: 10 } });
      await first.stop();
      await expect(startTestDevnet({ dataDir })).rejects.toMatchObject({
        code: 'INVALID_DEVNET_CONFIG',
        data: { key: 'daemon.coinbaseMaturityBlocks' },
      });
      const again = await startTestDevnet({ dataDir, daemon: { coinbaseMaturityBlocks: 10 } });
      expect(again.chain.height).toBe(12);
      await again.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
