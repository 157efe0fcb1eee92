import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBlock, serializeBlock } from '../../src/fuego/block.js';
import {
  auxHeaderHash,
  blockHashingBlob,
  blockId,
  checkMergeMiningTag,
  parentHashingBlob,
  transactionMerkleRoot,
} from '../../src/fuego/block-hash.js';
import { buildJobHashingBlob, buildSubmitBlob, parseBlockTemplate } from '../../src/fuego/block-template.js';
import { CodecError } from '../../src/fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash } from '../../src/fuego/keccak.js';
import { transactionHash } from '../../src/fuego/transaction.js';
import { treeHash } from '../../src/fuego/tree-hash.js';
import { findMergeMiningTag, parseTxExtra } from '../../src/fuego/tx-extra.js';
import { loadCapturedTemplates, requestBody, type TemplateResult } from '../helpers/captured-templates.js';
import { fixturePath, readFixture, readJsonFixture } from '../helpers/fixtures.js';

// Raw requests and responses of a real fuegod 1.9.3 (test/fixtures/fuegod-rpc, see INDEX.md there).

const hex = bytesToHex;

function submittedBlob(relative: string): Uint8Array {
  const body = JSON.parse(requestBody(relative)) as { params: [string] };
  return hexToBytes(body.params[0]);
}

const templates = loadCapturedTemplates();

describe('real getblocktemplate responses', () => {
  it('covers the 35 captured templates, the top-level ones and every major version 1..9', () => {
    expect(templates.filter((t) => t.name.startsWith('gbt-'))).toHaveLength(35);
    expect(templates.length).toBeGreaterThanOrEqual(35 + 4);
    const majors = new Set(templates.map((t) => hexToBytes(t.result.blocktemplate_blob)[0]));
    expect([...majors].sort()).toEqual([1, 2, 4, 5, 6, 7, 8, 9]);
  });

  it.each(templates)('$name parses and re-serializes byte for byte', ({ result, reserveSize }) => {
    const blob = hexToBytes(result.blocktemplate_blob);
    const block = parseBlock(blob);
    expect(hex(serializeBlock(block))).toBe(result.blocktemplate_blob);

    const template = parseBlockTemplate({
      blob,
      parentStyle: 'pool',
      reservedOffset: result.reserved_offset,
      reserveSize,
      height: result.height,
      difficulty: BigInt(result.difficulty),
    });
    expect(template.height).toBe(result.height);
    expect(template.extraNonceCapacity).toBe(reserveSize - 1);
    // The reserved area follows `02 <reserve_size>`, starting one byte before reserved_offset.
    expect(blob[result.reserved_offset - 3]).toBe(0x02);
    expect(blob[result.reserved_offset - 2]).toBe(reserveSize);
    expect(parseTxExtra(block.baseTransaction.extra).some((f) => f.kind === 'nonce')).toBe(true);

    // A job with an all-zero extra nonce leaves the coinbase as it is.
    const job = buildJobHashingBlob(template, new Uint8Array(template.extraNonceCapacity));
    expect(hex(job.coinbaseHash)).toBe(hex(transactionHash(block.baseTransaction)));
    expect(hex(job.merkleRoot)).toBe(hex(transactionMerkleRoot(block)));
    expect(hex(job.blockHashingBlob)).toBe(hex(blockHashingBlob({ ...block, nonce: 0 })));
    // The broadcast path gives the same blob (v1 and v9 alike), also after another nonce.
    template.buildHashingBlob(new Uint8Array(template.extraNonceCapacity).fill(0xee));
    expect(hex(template.buildHashingBlob(new Uint8Array(template.extraNonceCapacity)))).toBe(
      hex(job.hashingBlob),
    );

    if (block.majorVersion >= 2) {
      expect(block.parentBlock?.majorVersion).toBe(0);
      expect(hex(block.parentBlock!.prevId)).toBe('00'.repeat(32));
      expect(findMergeMiningTag(block.parentBlock!.baseTransaction.extra)).toEqual({
        depth: 0n,
        merkleRoot: new Uint8Array(32),
      });
      expect(checkMergeMiningTag(block)).toBe(false);
      expect(job.hashingBlob).toHaveLength(76);
      expect(job.nonceOffset).toBe(39);
      expect(hex(job.auxHash)).toBe(hex(auxHeaderHash(block)));
      // The pool-style block we would submit decodes to the PoW input we hand out, and passes the mm check.
      const submitted = parseBlock(buildSubmitBlob(template, new Uint8Array(0), 0x12345678));
      expect(submitted.parentBlock?.majorVersion).toBe(1);
      expect(hex(submitted.parentBlock!.prevId)).toBe(hex(block.prevId));
      expect(checkMergeMiningTag(submitted)).toBe(true);
      const powInput = parentHashingBlob(submitted);
      expect(hex(powInput.subarray(39, 43))).toBe('78563412');
      powInput.fill(0, 39, 43);
      expect(hex(powInput)).toBe(hex(job.hashingBlob));
    } else {
      // v1: the PoW input is the block hashing blob, nonce in the header.
      expect(job.parentCoinbase).toBeNull();
      expect(job.nonceOffset).toBe(39);
      expect(hex(job.hashingBlob)).toBe(hex(blockHashingBlob({ ...block, nonce: 0 })));
      const submitted = parseBlock(buildSubmitBlob(template, new Uint8Array(0), 7));
      expect(submitted.nonce).toBe(7);
      expect(hex(blockHashingBlob(submitted))).toBe(hex(blockHashingBlob({ ...block, nonce: 7 })));
    }
  });

  it('the template with a pool transaction has it in its merkle tree', () => {
    const t = templates.find((x) => x.name.startsWith('71-'))!;
    const template = parseBlockTemplate({
      blob: hexToBytes(t.result.blocktemplate_blob),
      parentStyle: 'pool',
      reservedOffset: t.result.reserved_offset,
      reserveSize: t.reserveSize,
    });
    expect(template.block.transactionHashes.map(hex)).toEqual([
      '4cdbf83d755dccc43a67fa116757d0e712cab6fc0042b571c57ad955045689df',
    ]);
    expect(template.coinbaseBranch.map(hex)).toEqual([
      '4cdbf83d755dccc43a67fa116757d0e712cab6fc0042b571c57ad955045689df',
    ]);
    const extraNonce = Uint8Array.of(1, 2, 3, 4);
    const job = buildJobHashingBlob(template, extraNonce);
    const block = parseBlock(buildSubmitBlob(template, extraNonce, 1));
    expect(hex(job.merkleRoot)).toBe(hex(treeHash([job.coinbaseHash, template.block.transactionHashes[0]!])));
    expect(hex(transactionMerkleRoot(block))).toBe(hex(job.merkleRoot));
    expect(checkMergeMiningTag(block)).toBe(true);
  });

  it('the unsolved blobs the daemon accepted below height 800000 parse and re-serialize', () => {
    for (const file of readdirSync(fixturePath('fuegod-rpc/unsolved'))) {
      const capture = readJsonFixture<{ submitblock: { request: string } }>(`fuegod-rpc/unsolved/${file}`);
      const blob = (JSON.parse(capture.submitblock.request) as { params: [string] }).params[0];
      expect(hex(serializeBlock(parseBlock(hexToBytes(blob))))).toBe(blob);
    }
  });

  it('the blobs the daemon rejected as "Wrong block blob" / "Block not accepted" are CodecErrors here too', () => {
    expect(() => submittedBlob('fuegod-rpc/08-submitblock-bad-hex.request.txt')).toThrow(CodecError);
    const bad = submittedBlob('fuegod-rpc/09-submitblock-bad-blob-validhex.request.txt');
    expect(() => parseBlock(bad)).toThrow(CodecError);
  });
});

/** `key value` lines of one section of pow-testvectors-v9.txt. */
function powSection(letter: 'A' | 'B' | 'C'): Record<string, string> {
  const text = readFixture('fuegod-rpc/pow-testvectors-v9.txt');
  const start = text.indexOf(`## ${letter}.`);
  const next = /\n## [A-Z]\./.exec(text.slice(start + 1));
  const end = next === null ? text.length : start + 1 + next.index;
  const section: Record<string, string> = {};
  for (const line of text.slice(start, end).split('\n')) {
    const match = /^([a-z_0-9()=]+) (\S+)$/.exec(line.trim());
    if (match !== null && !(match[1]! in section)) section[match[1]!] = match[2]!;
  }
  return section;
}

describe('the solved v9 block at height 15 (51-submitblock-solved-v9-h15-OK)', () => {
  const solved = submittedBlob('fuegod-rpc/51-submitblock-solved-v9-h15-OK.request.txt');
  const b = powSection('B');
  const gbt = JSON.parse(readFixture('fuegod-rpc/50-getblocktemplate-v9-for-solve.response.body')) as {
    result: TemplateResult;
  };
  const reserveSize = (
    JSON.parse(requestBody('fuegod-rpc/50-getblocktemplate-v9-for-solve.request.txt')) as {
      params: { reserve_size: number };
    }
  ).params.reserve_size;

  it('is the blob stated in pow-testvectors-v9.txt section B', () => {
    expect(hex(solved)).toBe(b['blob']);
  });

  it('reproduces the daemon block id, PoW input, aux hash and header fields', () => {
    const block = parseBlock(solved);
    expect(hex(serializeBlock(block))).toBe(hex(solved));
    expect(block.majorVersion).toBe(Number(b['major_version']));
    expect(block.minorVersion).toBe(Number(b['minor_version']));
    expect(block.nonce).toBe(Number(b['nonce']));
    expect(block.timestamp).toBe(BigInt(b['timestamp']!));
    expect(hex(blockId(block))).toBe(b['block_hash']);
    expect(hex(parentHashingBlob(block))).toBe(b['pow_hashing_blob']);
    expect(hex(blockHashingBlob(block))).toBe(b['block_hashing_blob']);
    expect(hex(auxHeaderHash(block))).toBe(b['aux_block_header_hash']);
    expect(hex(block.parentBlock!.baseTransaction.extra)).toBe(b['parent_miner_tx_extra']);
    expect(checkMergeMiningTag(block)).toBe(true);
    // What getlastblockheader and f_block_json said afterwards.
    expect(hex(blockId(block))).toBe('6c553bf78ed2e4d970730db668cd109aeaeabd9a1cc1a3b53cc168051c7df182');
    expect(hex(transactionHash(block.baseTransaction))).toBe(
      '92dd828be7e6c7a78a0b0eaccfec7934986ac3dfb5e9e9097dc0bd7d18db7690',
    );
  });

  it('was built daemon-miner style with an untouched extra nonce: our flow reproduces it exactly', () => {
    const blob = hexToBytes(gbt.result.blocktemplate_blob);
    const block = parseBlock(solved);
    // The solved coinbase is the template's coinbase byte for byte, so no extra nonce was written.
    const template = parseBlockTemplate({
      blob,
      reservedOffset: gbt.result.reserved_offset,
      reserveSize,
      height: gbt.result.height,
      parentStyle: 'daemon-miner',
    });
    expect(hex(template.blob.subarray(template.coinbaseStart, template.coinbaseEnd))).toBe(
      hex(solved.subarray(template.coinbaseStart, template.coinbaseEnd)),
    );
    expect(block.parentBlock!.majorVersion).toBe(0);
    expect(block.parentBlock!.baseTransaction.version).toBe(0);

    const submit = buildSubmitBlob(template, new Uint8Array(0), block.nonce);
    expect(hex(submit)).toBe(hex(solved));
    const zeros = new Uint8Array(template.extraNonceCapacity);
    expect(hex(buildSubmitBlob(template, zeros, block.nonce))).toBe(hex(solved));
    const job = buildJobHashingBlob(template, zeros);
    const powInput = job.hashingBlob.slice();
    new DataView(powInput.buffer).setUint32(job.nonceOffset, block.nonce, true);
    expect(hex(powInput)).toBe(b['pow_hashing_blob']);

    // The pool style over the same template gives a different (equally valid) block.
    const pool = parseBlockTemplate({
      blob,
      reservedOffset: gbt.result.reserved_offset,
      reserveSize,
      parentStyle: 'pool',
    });
    expect(hex(buildSubmitBlob(pool, zeros, block.nonce))).not.toBe(hex(solved));
  });

  it('section A (template as returned) and C (naive solve) give the stated ids and fail the mm check', () => {
    for (const letter of ['A', 'C'] as const) {
      const s = powSection(letter);
      const block = parseBlock(hexToBytes(s['blob']!));
      expect(block.nonce).toBe(Number(s['nonce']));
      expect(hex(blockId(block))).toBe(s['block_hash']);
      expect(hex(parentHashingBlob(block))).toBe(s['pow_hashing_blob']);
      expect(hex(auxHeaderHash(block))).toBe(s['aux_block_header_hash']);
      expect(checkMergeMiningTag(block)).toBe(false);
    }
  });
});

describe('the solved v9 block at height 66 (80/81, after a daemon restart)', () => {
  it('is the daemon-miner flow over template 80 with its nonce', () => {
    const solved = submittedBlob('fuegod-rpc/81-submitblock-solved-after-restart-h66.request.txt');
    const gbt = JSON.parse(readFixture('fuegod-rpc/80-getblocktemplate-after-restart-h66.response.body')) as {
      result: TemplateResult;
    };
    const block = parseBlock(solved);
    expect(checkMergeMiningTag(block)).toBe(true);
    const template = parseBlockTemplate({
      blob: hexToBytes(gbt.result.blocktemplate_blob),
      reservedOffset: gbt.result.reserved_offset,
      reserveSize: 8,
      height: gbt.result.height,
      parentStyle: 'daemon-miner',
    });
    expect(hex(buildSubmitBlob(template, new Uint8Array(0), block.nonce))).toBe(hex(solved));
    const job = buildJobHashingBlob(template, new Uint8Array(0));
    expect(hex(cnFastHash(job.parentCoinbase!))).toBe(hex(parentHashingBlob(block).subarray(43, 75)));
  });
});
