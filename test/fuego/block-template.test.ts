import { describe, expect, it } from 'vitest';
import { parseBlock } from '../../src/fuego/block.js';
import { blockId, checkMergeMiningTag, parentHashingBlob } from '../../src/fuego/block-hash.js';
import {
  type BlockTemplateInput,
  buildJobHashingBlob,
  buildSubmitBlob,
  parseBlockTemplate,
} from '../../src/fuego/block-template.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash, hashPair } from '../../src/fuego/keccak.js';
import { nativeFastHash } from '../../src/pow/native-fast-hash.js';
import { codeOf } from '../helpers/codec-error-code.js';
import { readJsonFixture } from '../helpers/fixtures.js';

const flow = readJsonFixture<{
  block_v9_pool_flow: {
    template: { blocktemplate_blob: string; reserved_offset: number; reserve_size: number; height: number };
  };
}>('vectors/format.json').block_v9_pool_flow.template;

const input: BlockTemplateInput = {
  blob: hexToBytes(flow.blocktemplate_blob),
  parentStyle: 'pool',
  reservedOffset: flow.reserved_offset,
  reserveSize: flow.reserve_size,
  height: flow.height,
  difficulty: 100000n,
};

describe('parseBlockTemplate validation', () => {
  it('accepts the daemon layout and keeps the inputs', () => {
    const template = parseBlockTemplate(input);
    expect(template.difficulty).toBe(100000n);
    expect(template.reservedOffset).toBe(239);
    expect(template.reserveSize).toBe(8);
    // Coinbase + 2 transactions: the branch is the single node H(t1 ‖ t2).
    const [t1, t2] = template.block.transactionHashes as [Uint8Array, Uint8Array];
    expect(template.coinbaseBranch.map(bytesToHex)).toEqual([bytesToHex(hashPair(t1, t2))]);
    expect(Object.isFrozen(template)).toBe(true);
  });

  it('requires the usable area inside the coinbase extra-nonce field', () => {
    // Data of the 02 08 field is blob[238, 246); usable = [offset, offset + reserveSize − 1).
    expect(codeOf(() => parseBlockTemplate({ ...input, reservedOffset: 238 }))).toBe('OK');
    expect(codeOf(() => parseBlockTemplate({ ...input, reservedOffset: 237 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reservedOffset: 240 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reserveSize: 9 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reservedOffset: 100 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reservedOffset: 239.5 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reserveSize: 0 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseBlockTemplate({ ...input, reserveSize: 256 }))).toBe('INVALID_VALUE');
  });

  it('checks the height against the coinbase input', () => {
    expect(codeOf(() => parseBlockTemplate({ ...input, height: flow.height + 1 }))).toBe('INVALID_VALUE');
    const { height: _height, ...withoutHeight } = input;
    expect(parseBlockTemplate(withoutHeight).height).toBe(flow.height);
  });

  it('passes on blob errors as CodecErrors', () => {
    expect(codeOf(() => parseBlockTemplate({ ...input, blob: input.blob.subarray(0, 100) }))).toBe(
      'TRUNCATED',
    );
  });

  it('copies the blob, so later changes to the caller buffer do not leak in', () => {
    const blob = input.blob.slice();
    const template = parseBlockTemplate({ ...input, blob });
    const before = bytesToHex(buildJobHashingBlob(template, new Uint8Array(0)).hashingBlob);
    blob.fill(0xff, 100, 200);
    expect(bytesToHex(buildJobHashingBlob(template, new Uint8Array(0)).hashingBlob)).toBe(before);
  });
});

describe('jobs and submitted blocks', () => {
  const template = parseBlockTemplate(input);

  it('refuses an extra nonce longer than reserve_size − 1 and a nonce outside uint32', () => {
    expect(codeOf(() => buildJobHashingBlob(template, new Uint8Array(8)))).toBe('INVALID_VALUE');
    expect(codeOf(() => buildSubmitBlob(template, new Uint8Array(8), 0))).toBe('INVALID_VALUE');
    expect(codeOf(() => buildSubmitBlob(template, new Uint8Array(7), -1))).toBe('INVALID_VALUE');
    expect(codeOf(() => buildSubmitBlob(template, new Uint8Array(7), 2 ** 32))).toBe('INVALID_VALUE');
    expect(codeOf(() => buildSubmitBlob(template, new Uint8Array(7), 1.5))).toBe('INVALID_VALUE');
  });

  it('writes a short extra nonce at reserved_offset and leaves the rest of the area alone', () => {
    const submit = buildSubmitBlob(template, Uint8Array.of(0xab, 0xcd), 0xffffffff);
    expect(bytesToHex(submit.subarray(236, 246))).toBe('0208' + '00abcd0000000000');
    const block = parseBlock(submit);
    expect(block.nonce).toBe(0xffffffff);
    expect(checkMergeMiningTag(block)).toBe(true);
    expect(bytesToHex(parentHashingBlob(block).subarray(39, 43))).toBe('ffffffff');
  });

  it('gives a new PoW input and block id for each extra nonce', () => {
    const seen = new Set<string>();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const extraNonce = Uint8Array.of(i, i >> 8, 1, 2);
      const job = buildJobHashingBlob(template, extraNonce);
      seen.add(bytesToHex(job.hashingBlob));
      const block = parseBlock(buildSubmitBlob(template, extraNonce, 5));
      ids.add(bytesToHex(blockId(block)));
      const pow = job.hashingBlob.slice();
      pow[39] = 5;
      expect(bytesToHex(parentHashingBlob(block))).toBe(bytesToHex(pow));
    }
    expect(seen.size).toBe(20);
    expect(ids.size).toBe(20);
  });

  it('buildHashingBlob gives buildJob’s hashing blob, whatever nonce lengths came before', () => {
    const nonces = [
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(1),
      new Uint8Array(0),
      Uint8Array.of(9, 8, 7, 6),
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
      Uint8Array.of(1),
    ];
    const blobs = nonces.map((nonce) => template.buildHashingBlob(nonce));
    nonces.forEach((nonce, i) => {
      expect(bytesToHex(blobs[i]!), `nonce ${i}`).toBe(
        bytesToHex(buildJobHashingBlob(template, nonce).hashingBlob),
      );
    });
    // Each call returns its own array.
    blobs[1]!.fill(0);
    expect(bytesToHex(blobs[5]!)).toBe(bytesToHex(buildJobHashingBlob(template, nonces[5]!).hashingBlob));
    expect(codeOf(() => template.buildHashingBlob(new Uint8Array(8)))).toBe('INVALID_VALUE');
  });

  it('buildHashingBlob with a hash that writes in place (the native one) gives the same blobs', () => {
    const intoCalls: number[] = [];
    const writesInPlace = Object.assign((data: Uint8Array) => cnFastHash(data), {
      into: (data: Uint8Array, out: Uint8Array, offset: number) => {
        intoCalls.push(offset);
        out.set(cnFastHash(data), offset);
      },
    });
    const native = nativeFastHash();
    for (const fastHash of [writesInPlace, ...(native ? [native] : [])]) {
      const fast = parseBlockTemplate({ ...input, fastHash });
      for (const nonce of [Uint8Array.of(0xff, 0xff, 0xff), Uint8Array.of(3), new Uint8Array(7).fill(0x5a)]) {
        expect(bytesToHex(fast.buildHashingBlob(nonce))).toBe(bytesToHex(template.buildHashingBlob(nonce)));
      }
    }
    expect(intoCalls.length).toBeGreaterThan(0);
  });

  it('hands out independent buffers', () => {
    const a = buildJobHashingBlob(template, Uint8Array.of(1));
    a.hashingBlob.fill(0);
    a.parentCoinbase!.fill(0);
    const b = buildJobHashingBlob(template, Uint8Array.of(1));
    expect(bytesToHex(b.hashingBlob)).not.toBe('00'.repeat(76));
    expect(bytesToHex(b.parentCoinbase!.subarray(0, 8))).toBe('0100000023032100');
  });

  it('builds a job with a handful of hashes, not a re-serialization', () => {
    const extraNonce = new Uint8Array(7);
    const started = performance.now();
    for (let i = 0; i < 2000; i++) {
      extraNonce[0] = i & 0xff;
      extraNonce[1] = i >> 8;
      buildJobHashingBlob(template, extraNonce);
    }
    const perJobMs = (performance.now() - started) / 2000;
    // About 4 keccaks per job; generous bound so a busy CI box does not flake.
    expect(perJobMs).toBeLessThan(1);
  });
});
