import { describe, expect, it } from 'vitest';
import { parseBlock, serializeBlock } from '../../src/fuego/block.js';
import {
  auxHeaderHash,
  blockHashingBlob,
  blockId,
  checkMergeMiningTag,
  MAINNET_GENESIS_BLOCK_ID,
  parentHashingBlob,
  transactionMerkleRoot,
} from '../../src/fuego/block-hash.js';
import { buildJobHashingBlob, buildSubmitBlob, parseBlockTemplate } from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash } from '../../src/fuego/keccak.js';
import { parseTransaction, serializeTransaction, transactionHash } from '../../src/fuego/transaction.js';
import { treeBranch, treeDepth, treeHash, treeHashFromBranch } from '../../src/fuego/tree-hash.js';
import { findMergeMiningTag, parseTxExtra } from '../../src/fuego/tx-extra.js';
import { readJsonFixture } from '../helpers/fixtures.js';

// Vectors computed with Fuego's own C/C++ code (usexfg/fuego @ 3c32d98), see test/fixtures/README.md.
interface FormatVectors {
  cn_fast_hash: { vectors: { input: string; output: string }[] };
  tree_hash: { leaves: string[]; vectors: { count: number; root: string; tree_depth: number }[] };
  genesis: {
    coinbase_tx: string;
    coinbase_tx_hash: string;
    major: number;
    minor: number;
    timestamp: number;
    nonce: number;
    block_blob: string;
    hashing_blob: string;
    block_id: string;
  };
  block_v9_pool_flow: {
    template: {
      blocktemplate_blob: string;
      reserved_offset: number;
      reserve_size: number;
      height: number;
      prev_id: string;
      timestamp: number;
      parent_coinbase_in_template: string;
      coinbase_tx: string;
      coinbase_extra: string;
      extra_nonce_data_starts_at: number;
      template_as_is_passes_mm_check: boolean;
    };
    pool_extra_nonce_written_at_reserved_offset: string;
    coinbase_hash_after_extra_nonce: string;
    tx_merkle_root: string;
    block_hashing_blob: string;
    'aux_header_hash_(mm_merkle_root)': string;
    pool_parent_coinbase: string;
    pool_parent_coinbase_hash: string;
    hashing_blob_for_miner: string;
    nonce_offset_in_hashing_blob: number;
    miner_nonce_uint32: number;
    hashing_blob_with_nonce: string;
    submitblock_blob: string;
    block_id: string;
    daemon_verification: {
      pow_input: string;
      block_id: string;
      mm_tag_root: string;
      aux_header_hash: string;
    };
  };
  block_v9_daemon_miner_flow: { submit_blob: string; pow_input: string; block_id: string };
}

const vectors = readJsonFixture<FormatVectors>('vectors/format.json');
const hex = bytesToHex;

describe('cn_fast_hash vectors', () => {
  it.each(vectors.cn_fast_hash.vectors)('keccak($input)', ({ input, output }) => {
    expect(hex(cnFastHash(hexToBytes(input)))).toBe(output);
  });
});

describe('tree_hash vectors', () => {
  const leaves = vectors.tree_hash.leaves.map(hexToBytes);
  it('leaves are keccak of single bytes', () => {
    leaves.forEach((leaf, i) => {
      expect(hex(leaf)).toBe(hex(cnFastHash(Uint8Array.of(i))));
    });
  });
  it.each(vectors.tree_hash.vectors)('n = $count', ({ count, root, tree_depth }) => {
    const first = leaves.slice(0, count);
    expect(hex(treeHash(first))).toBe(root);
    expect(treeDepth(count)).toBe(tree_depth);
    const branch = treeBranch(first);
    expect(branch).toHaveLength(tree_depth);
    expect(hex(treeHashFromBranch(branch, first[0]!))).toBe(root);
  });
});

describe('genesis block', () => {
  const g = vectors.genesis;
  it('coinbase parses, re-serializes and hashes', () => {
    const tx = parseTransaction(hexToBytes(g.coinbase_tx));
    expect(tx.version).toBe(1);
    expect(tx.unlockTime).toBe(60n);
    expect(tx.inputs).toEqual([{ kind: 'base', blockIndex: 0 }]);
    expect(tx.outputs).toHaveLength(1);
    expect(tx.outputs[0]!.amount).toBe(305176116n);
    expect(hex(serializeTransaction(tx))).toBe(g.coinbase_tx);
    expect(hex(transactionHash(tx))).toBe(g.coinbase_tx_hash);
    expect(parseTxExtra(tx.extra).map((f) => f.kind)).toEqual(['publicKey']);
  });
  it('block parses, re-serializes, and gives the hashing blob and block id', () => {
    const block = parseBlock(hexToBytes(g.block_blob));
    expect(block.majorVersion).toBe(g.major);
    expect(block.minorVersion).toBe(g.minor);
    expect(block.timestamp).toBe(BigInt(g.timestamp));
    expect(block.nonce).toBe(g.nonce);
    expect(block.parentBlock).toBeUndefined();
    expect(hex(serializeBlock(block))).toBe(g.block_blob);
    expect(hex(blockHashingBlob(block))).toBe(g.hashing_blob);
    expect(hex(parentHashingBlob(block))).toBe(g.hashing_blob);
    expect(hex(blockId(block))).toBe(g.block_id);
    expect(hex(MAINNET_GENESIS_BLOCK_ID)).toBe(g.block_id);
    expect(checkMergeMiningTag(block)).toBe(false);
  });
});

describe('block_v9_pool_flow', () => {
  const v = vectors.block_v9_pool_flow;
  const t = v.template;
  const extraNonce = hexToBytes(v.pool_extra_nonce_written_at_reserved_offset);
  const template = parseBlockTemplate({
    blob: hexToBytes(t.blocktemplate_blob),
    parentStyle: 'pool',
    reservedOffset: t.reserved_offset,
    reserveSize: t.reserve_size,
    height: t.height,
  });

  it('parses the template', () => {
    expect(template.majorVersion).toBe(9);
    expect(template.height).toBe(t.height);
    expect(hex(template.prevId)).toBe(t.prev_id);
    expect(template.timestamp).toBe(BigInt(t.timestamp));
    expect(template.parentStyle).toBe('pool');
    expect(hex(template.blob.subarray(template.coinbaseStart, template.coinbaseEnd))).toBe(t.coinbase_tx);
    expect(hex(template.block.baseTransaction.extra)).toBe(t.coinbase_extra);
    // reserved_offset is one past the data start: 7 usable bytes of the 8 reserved.
    expect(template.extraNonceOffset).toBe(t.reserved_offset);
    expect(template.extraNonceOffset - 1).toBe(t.extra_nonce_data_starts_at);
    expect(template.extraNonceCapacity).toBe(t.reserve_size - 1);
    expect(extraNonce).toHaveLength(template.extraNonceCapacity);
    expect(hex(serializeTransaction(template.block.parentBlock!.baseTransaction))).toBe(
      t.parent_coinbase_in_template,
    );
    expect(checkMergeMiningTag(template.block)).toBe(t.template_as_is_passes_mm_check);
    expect(hex(serializeBlock(template.block))).toBe(t.blocktemplate_blob);
  });

  it('builds every intermediate value of the job', () => {
    const job = buildJobHashingBlob(template, extraNonce);
    expect(hex(job.coinbaseHash)).toBe(v.coinbase_hash_after_extra_nonce);
    expect(hex(job.merkleRoot)).toBe(v.tx_merkle_root);
    expect(hex(job.blockHashingBlob)).toBe(v.block_hashing_blob);
    expect(hex(job.auxHash)).toBe(v['aux_header_hash_(mm_merkle_root)']);
    expect(hex(job.parentCoinbase!)).toBe(v.pool_parent_coinbase);
    expect(hex(cnFastHash(job.parentCoinbase!))).toBe(v.pool_parent_coinbase_hash);
    expect(hex(job.hashingBlob)).toBe(v.hashing_blob_for_miner);
    expect(job.hashingBlob).toHaveLength(76);
    expect(job.nonceOffset).toBe(v.nonce_offset_in_hashing_blob);
  });

  it('builds the submitted block, which decodes to the same ids the daemon computed', () => {
    const submit = buildSubmitBlob(template, extraNonce, v.miner_nonce_uint32);
    expect(hex(submit)).toBe(v.submitblock_blob);
    const block = parseBlock(submit);
    expect(hex(serializeBlock(block))).toBe(v.submitblock_blob);
    expect(block.nonce).toBe(v.miner_nonce_uint32);
    expect(hex(parentHashingBlob(block))).toBe(v.hashing_blob_with_nonce);
    expect(hex(parentHashingBlob(block))).toBe(v.daemon_verification.pow_input);
    expect(hex(blockHashingBlob(block))).toBe(v.block_hashing_blob);
    expect(hex(transactionMerkleRoot(block))).toBe(v.tx_merkle_root);
    expect(hex(auxHeaderHash(block))).toBe(v.daemon_verification.aux_header_hash);
    expect(hex(findMergeMiningTag(block.parentBlock!.baseTransaction.extra)!.merkleRoot)).toBe(
      v.daemon_verification.mm_tag_root,
    );
    expect(checkMergeMiningTag(block)).toBe(true);
    expect(hex(blockId(block))).toBe(v.block_id);
    expect(hex(blockId(block))).toBe(v.daemon_verification.block_id);
  });
});

describe('block_v9_daemon_miner_flow', () => {
  const v = vectors.block_v9_daemon_miner_flow;
  const t = vectors.block_v9_pool_flow.template;
  const pool = vectors.block_v9_pool_flow;
  const extraNonce = hexToBytes(pool.pool_extra_nonce_written_at_reserved_offset);
  const template = parseBlockTemplate({
    blob: hexToBytes(t.blocktemplate_blob),
    reservedOffset: t.reserved_offset,
    reserveSize: t.reserve_size,
    parentStyle: 'daemon-miner',
  });

  it('gives the daemon miner PoW input, submit blob and block id', () => {
    const job = buildJobHashingBlob(template, extraNonce);
    expect(hex(job.auxHash)).toBe(pool['aux_header_hash_(mm_merkle_root)']);
    const withNonce = job.hashingBlob.slice();
    new DataView(withNonce.buffer).setUint32(job.nonceOffset, pool.miner_nonce_uint32, true);
    expect(hex(withNonce)).toBe(v.pow_input);
    const submit = buildSubmitBlob(template, extraNonce, pool.miner_nonce_uint32);
    expect(hex(submit)).toBe(v.submit_blob);
    const block = parseBlock(submit);
    expect(hex(parentHashingBlob(block))).toBe(v.pow_input);
    expect(hex(blockId(block))).toBe(v.block_id);
    expect(checkMergeMiningTag(block)).toBe(true);
  });
});
