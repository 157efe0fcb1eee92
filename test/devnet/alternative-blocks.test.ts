import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChainBlock } from '../../src/devnet/chain/chain-state.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { readFixture } from '../helpers/fixtures.js';
import { jsonRpc, send, sendToSecondAddress, startTestDevnet } from './devnet-test-helpers.js';
import {
  blockFromTemplate,
  getTemplate as getTemplateOf,
  peerBlockOn,
  type SolvedBlock,
  solvedBlock,
  submitBlockRaw,
  type Template,
} from './solved-blocks.js';

const DIFFICULTY = 6;

/**
 * A valid block whose parent is a known block other than the tip (a stale block: its miner had not
 * heard of the new tip) is kept as an alternative block, and the chain switches to an alternative
 * branch once it is heavier, as fuegod 1.9.3 does (Blockchain::addNewBlock,
 * handle_alternative_block, switch_to_alternative_blockchain; RpcServer::on_submitblock answers OK
 * only when the block went onto the main chain).
 */
describe('stale blocks kept as alternative blocks, and the switch to a heavier branch', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({ daemon: { difficulty: DIFFICULTY }, wallet: { addressCount: 2 } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const ok = { id: '1', jsonrpc: '2.0', result: { status: 'OK' } };
  /** The captured real reply to a stale submit: the same bytes whether or not the block is kept. */
  const realRefusal = readFixture('fuegod-rpc/54-submitblock-stale-template-h10.response.body').trim();
  const submit = (blob: Uint8Array) => jsonRpc(devnet.daemonUrl, 'submitblock', [bytesToHex(blob)]);
  const submitRaw = (blob: Uint8Array) => submitBlockRaw(devnet, blob);
  const getTemplate = () => getTemplateOf(devnet);
  const headerByHash = async (hash: string) => jsonRpc(devnet.daemonUrl, 'getblockheaderbyhash', { hash });
  const headerAt = async (height: number) =>
    (
      (await jsonRpc(devnet.daemonUrl, 'getblockheaderbyheight', { height }))['result'] as {
        block_header: Record<string, unknown>;
      }
    ).block_header;
  const info = async () =>
    JSON.parse((await send(`${devnet.daemonUrl}/getinfo`, 'GET')).text) as Record<string, unknown>;
  const altBlockHashes = async () =>
    (
      (await jsonRpc(devnet.daemonUrl, 'getaltblockslist', {}))['result'] as {
        alt_blocks: { hash: string }[];
      }
    ).alt_blocks.map((block) => block.hash);
  /** A block solved from `template`: the pool's work on it. */
  const solvedFrom = (template: Template, extraNonce: number, wantPass = true): SolvedBlock =>
    solvedBlock(blockFromTemplate(template, extraNonce).block, DIFFICULTY, wantPass);
  /** A block a peer mined on `parent` carrying exactly `transactions`. */
  const peerBlock = (parent: ChainBlock, transactions: ChainBlock['transactions'] = []) =>
    peerBlockOn(parent, {
      address: devnet.walletAddress,
      transactions,
      difficulty: DIFFICULTY,
      coinbaseMaturityBlocks: devnet.chain.coinbaseMaturityBlocks,
    });
  /**
   * A pool's miner solves a block on the current tip after another block arrived: returns the
   * other block (the tip) and the pool's block, submitted (answered -7 and kept).
   */
  const staleBlockKept = async (extraNonce: number): Promise<{ rival: ChainBlock; stale: ChainBlock }> => {
    const template = await getTemplate();
    const [rival] = devnet.control.mineBlocks(1);
    const solved = solvedFrom(template, extraNonce);
    expect(await submitRaw(solved.blob)).toBe(realRefusal);
    return { rival: rival!, stale: devnet.chain.blockById(solved.id)! };
  };

  test('a valid block on the block before the tip is answered -7 as the captured stale submit, and kept: getblockheaderbyhash knows it with orphan_status true, getinfo and getaltblockslist count it, the tip stays; submitted again it is -7 and kept once', async () => {
    const altBefore = (await info())['alt_blocks_count'] as number;
    const template = await getTemplate();
    const [rival] = devnet.control.mineBlocks(1);
    const stale = solvedFrom(template, 0x31);

    expect(await submitRaw(stale.blob)).toBe(realRefusal);
    expect(devnet.chain.tip.id).toBe(rival!.id);
    expect(await headerByHash(stale.id)).toMatchObject({
      result: {
        block_header: {
          hash: stale.id,
          height: template.height,
          prev_hash: bytesToHex(stale.block.prevId),
          nonce: stale.block.nonce,
          orphan_status: true,
          depth: 0,
        },
        status: 'OK',
      },
    });
    // Ties keep the block the daemon had first.
    expect(await headerAt(template.height)).toMatchObject({ hash: rival!.id, orphan_status: false });
    expect(await info()).toMatchObject({ alt_blocks_count: altBefore + 1, top_block_hash: rival!.id });
    expect(await altBlockHashes()).toContain(stale.id);

    expect(await submitRaw(stale.blob)).toBe(realRefusal);
    expect((await info())['alt_blocks_count']).toBe(altBefore + 1);
  });

  test('a stale block that misses the difficulty, one whose parent the daemon does not know, and one refused by refuseValidBlocks are answered -7 and not kept (as the captured unsolved stale template: getaltblockslist stayed empty)', async () => {
    const template = await getTemplate();
    devnet.control.mineBlocks(1);
    const altBefore = await altBlockHashes();
    const unknownBlock = (hash: string) => ({
      code: -5,
      message: `Internal error: can't get block by hash. Hash = ${hash}.`,
    });

    const lowWork = solvedFrom(template, 0x41, false);
    const orphan = solvedBlock(
      blockFromTemplate(template, 0x42, hexToBytes('ab'.repeat(32))).block,
      DIFFICULTY,
    );
    for (const block of [lowWork, orphan]) {
      expect(await submitRaw(block.blob)).toBe(realRefusal);
      expect((await headerByHash(block.id))['error']).toEqual(unknownBlock(block.id));
    }
    const refused = solvedFrom(template, 0x43);
    devnet.control.refuseValidBlocks(1);
    expect(await submitRaw(refused.blob)).toBe(realRefusal);
    expect((await headerByHash(refused.id))['error']).toEqual(unknownBlock(refused.id));
    expect(await altBlockHashes()).toEqual(altBefore);
    // The fault is spent on it: submitted again, the block is kept.
    expect(await submitRaw(refused.blob)).toBe(realRefusal);
    expect(await altBlockHashes()).toContain(refused.id);
  });

  test('a submitted block that makes the alternative branch heavier is answered OK and the daemon switches to it: the kept block is the main chain’s at its height, the block it replaced an alternative one, and the wallet follows', async () => {
    const { rival, stale } = await staleBlockKept(0x51);
    const onStale = peerBlock(stale);

    expect(await submit(onStale.blob)).toEqual(ok);
    expect(devnet.chain.tip.id).toBe(onStale.id);
    expect(await headerAt(stale.height)).toMatchObject({ hash: stale.id, orphan_status: false, depth: 1 });
    expect(await headerAt(stale.height + 1)).toMatchObject({ hash: onStale.id, prev_hash: stale.id });
    expect((await headerByHash(rival.id))['result']).toMatchObject({
      block_header: { hash: rival.id, height: stale.height, orphan_status: true },
    });
    const hashes = await altBlockHashes();
    expect(hashes).toContain(rival.id);
    expect(hashes).not.toContain(stale.id);
    const status = (await jsonRpc(devnet.walletUrl, 'getStatus', {}))['result'] as Record<string, unknown>;
    expect(status).toMatchObject({ blockCount: devnet.chain.height, lastBlockHash: onStale.id });
  });

  test('the network mining on a kept block (control.mineOnBlock) switches the chain once its branch is heavier; the replaced block’s transaction is carried over and stays confirmed', async () => {
    const template = await getTemplate();
    const sent = await sendToSecondAddress(devnet);
    const [rival] = devnet.control.mineBlocks(1);
    expect(rival!.transactions.map((tx) => tx.hash)).toEqual([sent]);
    const solved = solvedFrom(template, 0x61);
    expect(await submitRaw(solved.blob)).toBe(realRefusal);

    const { mined, orphaned } = devnet.control.mineOnBlock(solved.id, 1);
    expect(orphaned.map((block) => block.id)).toEqual([rival!.id]);
    expect(await headerAt(template.height)).toMatchObject({ hash: solved.id, orphan_status: false });
    expect(devnet.chain.tip.id).toBe(mined[0]!.id);
    expect(devnet.chain.findTransaction(sent)?.block?.id).toBe(mined[0]!.id);
    expect(devnet.chain.mempool()).toEqual([]);

    // Mining on a block of a branch that is not heavier keeps it alternative.
    const side = devnet.control.mineOnBlock(rival!.id, 1);
    expect(side.orphaned).toEqual([]);
    expect(devnet.chain.tip.id).toBe(mined[0]!.id);
    expect((await headerByHash(side.mined[0]!.id))['result']).toMatchObject({
      block_header: { orphan_status: true, height: template.height + 1 },
    });
  });

  test('a heavier branch that lacks a transaction of the block it would replace is not switched to, as fuegod refuses it: it stays alternative and the submit is -7', async () => {
    const template = await getTemplate();
    const sent = await sendToSecondAddress(devnet);
    const [rival] = devnet.control.mineBlocks(1);
    const solved = solvedFrom(template, 0x71);
    expect(await submitRaw(solved.blob)).toBe(realRefusal);
    const withoutTheTransaction = peerBlock(devnet.chain.blockById(solved.id)!);

    expect(await submitRaw(withoutTheTransaction.blob)).toBe(realRefusal);
    expect(devnet.chain.tip.id).toBe(rival!.id);
    expect(devnet.chain.findTransaction(sent)?.block?.id).toBe(rival!.id);
    for (const hash of [solved.id, withoutTheTransaction.id]) {
      expect((await headerByHash(hash))['result']).toMatchObject({ block_header: { orphan_status: true } });
    }
  });

  test('a switch to a branch one of whose blocks does not connect (it spends a transaction confirmed below the fork) is not made: that block is dropped, the submit is -7', async () => {
    const sent = await sendToSecondAddress(devnet);
    const [withTheTransaction] = devnet.control.mineBlocks(1);
    expect(withTheTransaction!.transactions.map((tx) => tx.hash)).toEqual([sent]);
    const { rival, stale } = await staleBlockKept(0x81);
    const again = peerBlock(stale, withTheTransaction!.transactions);

    expect(await submitRaw(again.blob)).toBe(realRefusal);
    expect(devnet.chain.tip.id).toBe(rival.id);
    expect((await headerByHash(again.id))['error']).toMatchObject({ code: -5 });
    expect((await headerByHash(stale.id))['result']).toMatchObject({ block_header: { orphan_status: true } });
    expect(devnet.chain.findTransaction(sent)?.block?.id).toBe(withTheTransaction!.id);
  });

  test('reorg and reorgBack still work beside kept blocks: reorgBack after a switch puts the replaced block back', async () => {
    const { rival, stale } = await staleBlockKept(0x91);
    devnet.control.mineOnBlock(stale.id, 1);
    expect(await headerAt(stale.height)).toMatchObject({ hash: stale.id });

    const back = devnet.control.reorgBack();
    expect(back.restored.map((block) => block.id)).toEqual([rival.id]);
    expect(await headerAt(stale.height)).toMatchObject({ hash: rival.id, orphan_status: false });
    expect((await headerByHash(stale.id))['result']).toMatchObject({ block_header: { orphan_status: true } });
  });
});
