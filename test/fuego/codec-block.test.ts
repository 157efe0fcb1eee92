import { describe, expect, it } from 'vitest';
import { type Block, parseBlock, parseBlockWithLayout, serializeBlock } from '../../src/fuego/block.js';
import {
  auxHeaderHash,
  blockId,
  checkMergeMiningTag,
  parentHashingBlob,
} from '../../src/fuego/block-hash.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash, hashPair } from '../../src/fuego/keccak.js';
import { serializeTransaction } from '../../src/fuego/transaction.js';
import { treeHashFromBranch } from '../../src/fuego/tree-hash.js';
import { encodeMergeMiningTag } from '../../src/fuego/tx-extra.js';
import { codeOf } from '../helpers/codec-error-code.js';
import { readJsonFixture } from '../helpers/fixtures.js';

const h = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
const vectors = readJsonFixture<{
  block_v9_pool_flow: {
    submitblock_blob: string;
    template: { blocktemplate_blob: string; coinbase_tx: string };
  };
}>('vectors/format.json');
const poolBlock = parseBlock(hexToBytes(vectors.block_v9_pool_flow.submitblock_blob));

/** A v9 block with a 3-transaction parent and a blockchain branch of depth 2. */
function deepParentBlock(): Block {
  return {
    ...poolBlock,
    parentBlock: {
      ...poolBlock.parentBlock!,
      transactionCount: 3,
      baseTransactionBranch: [h(0xa1)],
      baseTransaction: {
        ...poolBlock.parentBlock!.baseTransaction,
        extra: encodeMergeMiningTag(2, h(0xcc)),
      },
      blockchainBranch: [h(0xb1), h(0xb2)],
    },
  };
}

describe('block codec', () => {
  it('reports the layout of a v9 block', () => {
    const { layout } = parseBlockWithLayout(
      hexToBytes(vectors.block_v9_pool_flow.template.blocktemplate_blob),
    );
    expect(layout).toEqual({
      nonceOffset: 73,
      parentStart: 34,
      parentCoinbaseStart: 78,
      parentCoinbaseEnd: 118,
      coinbaseStart: 118,
      coinbaseEnd: 118 + vectors.block_v9_pool_flow.template.coinbase_tx.length / 2,
    });
  });

  it('round-trips a parent with branches and uses them in the id and PoW input', () => {
    const block = deepParentBlock();
    const bytes = serializeBlock(block);
    expect(parseBlock(bytes)).toEqual(block);
    expect(bytesToHex(serializeBlock(parseBlock(bytes)))).toBe(bytesToHex(bytes));
    const pow = parentHashingBlob(block);
    const parentCoinbaseHash = cnFastHash(serializeTransaction(block.parentBlock!.baseTransaction));
    expect(bytesToHex(pow.subarray(43, 75))).toBe(bytesToHex(hashPair(parentCoinbaseHash, h(0xa1))));
    expect(pow[75]).toBe(3);
    expect(bytesToHex(blockId(block))).not.toBe(bytesToHex(blockId(poolBlock)));
    expect(checkMergeMiningTag(block)).toBe(false);
  });

  it('checks the mm tag through a blockchain branch with the genesis id as path', () => {
    const block = deepParentBlock();
    const genesis = new Uint8Array(32);
    genesis[0] = 0b10; // level 1 on the right, level 0 on the left
    const root = treeHashFromBranch(block.parentBlock!.blockchainBranch, auxHeaderHash(block), genesis);
    const withRoot: Block = {
      ...block,
      parentBlock: {
        ...block.parentBlock!,
        baseTransaction: { ...block.parentBlock!.baseTransaction, extra: encodeMergeMiningTag(2, root) },
      },
    };
    expect(checkMergeMiningTag(withRoot, genesis)).toBe(true);
    expect(checkMergeMiningTag(withRoot)).toBe(false);
  });

  it('rejects major versions outside 1..9', () => {
    const bytes = hexToBytes(vectors.block_v9_pool_flow.submitblock_blob);
    for (const major of [0, 10, 0x7f]) {
      const changed = bytes.slice();
      changed[0] = major;
      expect(codeOf(() => parseBlock(changed))).toBe('INVALID_VALUE');
    }
    expect(codeOf(() => serializeBlock({ ...poolBlock, majorVersion: 10 }))).toBe('INVALID_VALUE');
  });

  it('rejects a parent transaction count of 0 or above 65535', () => {
    const bytes = hexToBytes(vectors.block_v9_pool_flow.submitblock_blob);
    const zero = bytes.slice();
    zero[77] = 0;
    expect(codeOf(() => parseBlock(zero))).toBe('INVALID_VALUE');
    const big = new Uint8Array(bytes.length + 2);
    big.set(bytes.subarray(0, 77));
    big.set([0x80, 0x80, 0x04], 77); // 65536
    big.set(bytes.subarray(78), 80);
    expect(codeOf(() => parseBlock(big))).toBe('INVALID_VALUE');
  });

  it('requires a merge-mining tag in the parent coinbase, with depth at most 256', () => {
    const noTag: Block = {
      ...poolBlock,
      parentBlock: {
        ...poolBlock.parentBlock!,
        baseTransaction: {
          ...poolBlock.parentBlock!.baseTransaction,
          extra: hexToBytes(`01${'00'.repeat(32)}`),
        },
      },
    };
    expect(codeOf(() => serializeBlock(noTag))).toBe('INVALID_VALUE');
    // Build the bytes by hand: parent coinbase `01 00 00 00 22 01 <32>` has no tag.
    const bytes = hexToBytes(vectors.block_v9_pool_flow.submitblock_blob);
    const noTagBytes = bytes.slice();
    noTagBytes.set([0x01, 0x00, 0x00, 0x00, 0x23, 0x01], 78);
    expect(codeOf(() => parseBlock(noTagBytes))).toBe('INVALID_VALUE');

    const deep257: Block = {
      ...poolBlock,
      parentBlock: {
        ...poolBlock.parentBlock!,
        baseTransaction: {
          ...poolBlock.parentBlock!.baseTransaction,
          extra: encodeMergeMiningTag(257, h(1)),
        },
        blockchainBranch: Array.from({ length: 257 }, () => h(2)),
      },
    };
    expect(codeOf(() => serializeBlock(deep257))).toBe('INVALID_VALUE');
    const deep256: Block = {
      ...deep257,
      parentBlock: {
        ...deep257.parentBlock!,
        baseTransaction: { ...deep257.parentBlock!.baseTransaction, extra: encodeMergeMiningTag(256, h(1)) },
        blockchainBranch: Array.from({ length: 256 }, () => h(2)),
      },
    };
    expect(parseBlock(serializeBlock(deep256))).toEqual(deep256);
    const deep257Bytes = serializeBlock(deep256).slice();
    // Raise the tag's depth varint from 256 (8002) to 257 (8102): the reader refuses it.
    const tagAt = bytesToHex(deep257Bytes).indexOf(`03228002${'01'.repeat(32)}`) / 2;
    deep257Bytes[tagAt + 2] = 0x81;
    expect(codeOf(() => parseBlock(deep257Bytes))).toBe('INVALID_VALUE');
  });

  it('refuses inconsistent block models', () => {
    const { parentBlock: _parent, ...v1Fields } = poolBlock;
    expect(codeOf(() => serializeBlock({ ...v1Fields, majorVersion: 2 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => serializeBlock({ ...poolBlock, majorVersion: 1 }))).toBe('INVALID_VALUE');
    const wrongBranch: Block = {
      ...poolBlock,
      parentBlock: { ...poolBlock.parentBlock!, transactionCount: 2 },
    };
    expect(codeOf(() => serializeBlock(wrongBranch))).toBe('INVALID_VALUE');
    const wrongDepth: Block = {
      ...poolBlock,
      parentBlock: { ...poolBlock.parentBlock!, blockchainBranch: [h(1)] },
    };
    expect(codeOf(() => serializeBlock(wrongDepth))).toBe('INVALID_VALUE');
    expect(codeOf(() => serializeBlock({ ...poolBlock, nonce: 2 ** 32 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => serializeBlock({ ...poolBlock, prevId: new Uint8Array(31) }))).toBe('INVALID_VALUE');
  });

  it('rejects trailing bytes', () => {
    const bytes = hexToBytes(`${vectors.block_v9_pool_flow.submitblock_blob}00`);
    expect(codeOf(() => parseBlock(bytes))).toBe('TRAILING_BYTES');
  });
});
