import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { validateBlock } from '../../src/devnet/chain/block-validator.js';
import type { Devnet } from '../../src/devnet/devnet.js';
import { parseBlock, parseBlockWithLayout, serializeBlock } from '../../src/fuego/block.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { readFixture } from '../helpers/fixtures.js';
import { jsonRpc, startTestDevnet, testHasher } from './devnet-test-helpers.js';
import { blockFromTemplate, getTemplate as getTemplateOf, solve, submitBlockRaw } from './solved-blocks.js';

const DIFFICULTY = 6;

describe('submitblock validation (brute-forced blocks)', () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await startTestDevnet({ daemon: { difficulty: DIFFICULTY } });
  });
  afterAll(async () => {
    await devnet.stop();
  });

  const submit = (blob: Uint8Array) => jsonRpc(devnet.daemonUrl, 'submitblock', [bytesToHex(blob)]);
  const getTemplate = () => getTemplateOf(devnet);
  const rejected = { error: { code: -7, message: 'Block not accepted' }, id: '1', jsonrpc: '2.0' };
  /** submitblock's reply as the bytes on the wire, and the real daemon's -7 reply to compare with. */
  const submitRaw = (blob: Uint8Array) => submitBlockRaw(devnet, blob);
  const realRefusal = readFixture('fuegod-rpc/54-submitblock-stale-template-h10.response.body').trim();

  test('a solved block is accepted; each mutation, a duplicate and a stale template are rejected with -7', async () => {
    const staleTemplate = await getTemplate();
    const template = await getTemplate();
    expect(template.difficulty).toBe(DIFFICULTY);
    const { block } = blockFromTemplate(template, 0x5a);
    const solved = solve(block, DIFFICULTY);
    const good = serializeBlock(solved);

    const flip = (offset: number, mask = 0x01) => {
      const copy = good.slice();
      copy[offset] = copy[offset]! ^ mask;
      return copy;
    };
    // Byte 1 of the block coinbase is its unlock-time varint; the root is the parent coinbase's last 32 bytes.
    const unlockTimeOffset = parseBlockWithLayout(good).layout.coinbaseStart + 1;
    const mutations: [string, Uint8Array, string][] = [
      ['coinbase byte (extra nonce)', flip(template.reserved_offset + 1, 0x01), 'MERGE_MINING_TAG'],
      ['coinbase byte (unlock time area)', flip(unlockTimeOffset, 0x01), 'MERGE_MINING_TAG'],
      ['merge-mining root', flip(118 - 1, 0x80), 'MERGE_MINING_TAG'],
      ['prev id', flip(5, 0x01), 'STALE'],
    ];
    // The nonce: take one whose hash misses the difficulty (a random nonce would pass 1 time in 6).
    const badNonce = solve({ ...solved, nonce: solved.nonce + 1 }, DIFFICULTY, false);
    mutations.push(['nonce', serializeBlock({ ...solved, nonce: badNonce.nonce }), 'LOW_DIFFICULTY']);

    for (const [what, blob, code] of mutations) {
      expect(await submit(blob), what).toEqual(rejected);
      const verdict = validateBlock(blob, devnet.chain.validationContext(), { hasher: testHasher() });
      expect(verdict.accepted ? 'accepted' : verdict.code, what).toBe(code);
    }

    const heightBefore = devnet.chain.height;
    expect(await submit(good)).toEqual({ id: '1', jsonrpc: '2.0', result: { status: 'OK' } });
    expect(devnet.chain.height).toBe(heightBefore + 1);
    const header = (await jsonRpc(devnet.daemonUrl, 'getlastblockheader', {}))['result'] as {
      block_header: Record<string, unknown>;
    };
    expect(header.block_header['nonce']).toBe(solved.nonce);
    expect(header.block_header['height']).toBe(template.height);

    expect(await submit(good)).toEqual(rejected);
    const stale = solve(blockFromTemplate(staleTemplate, 1).block, DIFFICULTY);
    expect(await submit(serializeBlock(stale))).toEqual(rejected);
  });

  test('refuseValidBlocks(n): the next n valid blocks get the real -7 reply and stay off the chain; invalid ones do not count', async () => {
    const template = await getTemplate();
    const solved = solve(blockFromTemplate(template, 0x21).block, DIFFICULTY);
    const good = serializeBlock(solved);
    const lowNonce = solve({ ...solved, nonce: solved.nonce + 1 }, DIFFICULTY, false).nonce;
    const invalid = serializeBlock({ ...solved, nonce: lowNonce });
    const tipBefore = devnet.chain.tip.id;

    devnet.control.refuseValidBlocks(2);
    expect(await submitRaw(invalid)).toBe(realRefusal);
    expect(await submitRaw(good)).toBe(realRefusal);
    expect(await submitRaw(good)).toBe(realRefusal);
    expect(devnet.chain.tip.id).toBe(tipBefore);
    expect(await submit(good)).toEqual({ id: '1', jsonrpc: '2.0', result: { status: 'OK' } });
    expect(devnet.chain.tip.block.nonce).toBe(solved.nonce);
  });

  test('refuseButAccept(n): the next n valid blocks join the chain but get the real -7 reply, as a duplicate submit does', async () => {
    const template = await getTemplate();
    const solved = solve(blockFromTemplate(template, 0x22).block, DIFFICULTY);
    const good = serializeBlock(solved);
    const lowNonce = solve({ ...solved, nonce: solved.nonce + 1 }, DIFFICULTY, false).nonce;
    const invalid = serializeBlock({ ...solved, nonce: lowNonce });
    const heightBefore = devnet.chain.height;

    devnet.control.refuseButAccept(1);
    expect(await submitRaw(invalid)).toBe(realRefusal);
    expect(devnet.chain.height).toBe(heightBefore);
    expect(await submitRaw(good)).toBe(realRefusal);
    expect(devnet.chain.height).toBe(heightBefore + 1);
    expect(devnet.chain.tip.block.nonce).toBe(solved.nonce);
    // The fault is over: the next block is answered OK.
    const next = solve(blockFromTemplate(await getTemplate(), 0x23).block, DIFFICULTY);
    expect(await submit(serializeBlock(next))).toEqual({ id: '1', jsonrpc: '2.0', result: { status: 'OK' } });
  });

  test('bad hex is -6, garbage is -7', async () => {
    expect((await jsonRpc(devnet.daemonUrl, 'submitblock', ['zz']))['error']).toEqual({
      code: -6,
      message: 'Wrong block blob',
    });
    expect((await jsonRpc(devnet.daemonUrl, 'submitblock', ['0100deadbeef']))['error']).toEqual({
      code: -7,
      message: 'Block not accepted',
    });
  });
});

describe('the validator against the real daemon v9 vectors (pow-testvectors-v9.txt)', () => {
  const vectors = readFixture('fuegod-rpc/pow-testvectors-v9.txt');
  const blobs = [...vectors.matchAll(/^blob ([0-9a-f]+)$/gm)].map((m) => m[1]!);
  const [asTemplate, minerSolved, naive] = blobs;
  const context = (blob: string) => {
    const block = parseBlock(hexToBytes(blob));
    return {
      height: 15,
      tipId: block.prevId,
      genesisId: hexToBytes('3c1fde6ff5748526bab6b30e78b33643a238c5ff37d76d99ea6fed2173c4eba1'),
      difficulty: 100000n,
      medianTimestamp: 0n,
      nowSeconds: block.timestamp,
      baseRewardAtomic: 76290900n,
      // Fuego's: the captured block's coinbase unlocks at 15 + 60.
      coinbaseMaturityBlocks: 60,
      isKnownBlock: () => false,
      mempoolFee: () => undefined,
    };
  };

  test('the block fuegod accepted at height 15 passes, the template as returned and the naive solve fail', () => {
    const ok = validateBlock(hexToBytes(minerSolved!), context(minerSolved!), { hasher: testHasher() });
    expect(ok.accepted).toBe(true);
    if (ok.accepted)
      expect(bytesToHex(ok.id)).toBe('6c553bf78ed2e4d970730db668cd109aeaeabd9a1cc1a3b53cc168051c7df182');
    for (const blob of [asTemplate!, naive!]) {
      const verdict = validateBlock(hexToBytes(blob), context(blob), { hasher: testHasher() });
      expect(verdict.accepted ? 'accepted' : verdict.code).toBe('MERGE_MINING_TAG');
    }
  });
});
