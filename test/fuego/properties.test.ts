import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Block, parseBlock, serializeBlock } from '../../src/fuego/block.js';
import {
  parseTransaction,
  serializeTransaction,
  signatureCountOf,
  type Transaction,
  type TransactionInput,
  type TransactionOutput,
} from '../../src/fuego/transaction.js';
import { treeDepth } from '../../src/fuego/tree-hash.js';
import { encodeMergeMiningTag, parseTxExtra } from '../../src/fuego/tx-extra.js';
import { decodeVarint, encodeVarint, type VarintWidth, varintLength } from '../../src/fuego/varint.js';
import { codeOf } from '../helpers/codec-error-code.js';

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
const hash32 = bytes(32);
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u8 = fc.integer({ min: 0, max: 0xff });

const inputArb: fc.Arbitrary<TransactionInput> = fc.oneof(
  fc.record({ kind: fc.constant('base' as const), blockIndex: u32 }),
  fc.record({
    kind: fc.constant('key' as const),
    amount: u64,
    outputIndexes: fc.array(u32, { maxLength: 4 }),
    keyImage: hash32,
  }),
  fc.record({
    kind: fc.constant('multisignature' as const),
    amount: u64,
    signatureCount: fc.integer({ min: 0, max: 3 }),
    outputIndex: u32,
    term: u32,
  }),
);

const outputArb: fc.Arbitrary<TransactionOutput> = fc.oneof(
  fc.record({ kind: fc.constant('key' as const), amount: u64, key: hash32 }),
  fc.record({
    kind: fc.constant('multisignature' as const),
    amount: u64,
    keys: fc.array(hash32, { maxLength: 3 }),
    requiredSignatureCount: u8,
    term: u32,
  }),
);

function transactionArb(extra: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Transaction> {
  return fc
    .record({
      version: fc.integer({ min: 0, max: 2 }),
      unlockTime: u64,
      inputs: fc.array(inputArb, { maxLength: 3 }),
      outputs: fc.array(outputArb, { maxLength: 3 }),
      extra,
    })
    .chain((prefix) =>
      fc
        .tuple(
          ...prefix.inputs.map((input) => {
            const n = signatureCountOf(input);
            return fc.array(bytes(64), { minLength: n, maxLength: n });
          }),
        )
        .map((signatures): Transaction => ({ ...prefix, signatures })),
    );
}

const txArb = transactionArb(fc.uint8Array({ maxLength: 80 }));

/** Parent coinbase extras always carry an mm tag; returns the extra and the tag depth. */
const parentExtraArb = fc
  .record({
    before: fc.option(hash32.map((key) => Uint8Array.of(1, ...key))),
    depth: fc.integer({ min: 0, max: 3 }),
    root: hash32,
    after: fc.option(
      fc.uint8Array({ maxLength: 8 }).map((nonce) => Uint8Array.of(2, nonce.length, ...nonce)),
    ),
  })
  .map(({ before, depth, root, after }) => ({
    depth,
    extra: Uint8Array.from([...(before ?? []), ...encodeMergeMiningTag(depth, root), ...(after ?? [])]),
  }));

const blockArb: fc.Arbitrary<Block> = fc
  .record({
    majorVersion: fc.integer({ min: 1, max: 9 }),
    minorVersion: u8,
    timestamp: u64,
    prevId: hash32,
    nonce: u32,
    baseTransaction: txArb,
    transactionHashes: fc.array(hash32, { maxLength: 4 }),
    parent: fc.record({
      majorVersion: u8,
      minorVersion: u8,
      prevId: hash32,
      transactionCount: fc.integer({ min: 1, max: 9 }),
      coinbase: transactionArb(fc.constant(new Uint8Array(0))),
      extra: parentExtraArb,
      hashes: fc.array(hash32, { minLength: 3, maxLength: 3 }),
    }),
  })
  .map(({ parent, ...fields }): Block => {
    if (fields.majorVersion === 1) return fields;
    const { depth, extra } = parent.extra;
    return {
      ...fields,
      parentBlock: {
        majorVersion: parent.majorVersion,
        minorVersion: parent.minorVersion,
        prevId: parent.prevId,
        transactionCount: parent.transactionCount,
        baseTransactionBranch: parent.hashes.slice(0, treeDepth(parent.transactionCount)),
        baseTransaction: { ...parent.coinbase, extra },
        blockchainBranch: parent.hashes.slice(0, depth),
      },
    };
  });

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const widths: VarintWidth[] = [8, 16, 32, 64];

describe('varint properties', () => {
  it('round-trips every uint64', () => {
    fc.assert(
      fc.property(u64, (value) => {
        const encoded = encodeVarint(value);
        expect(encoded.length).toBe(varintLength(value));
        expect(decodeVarint(encoded, 0)).toEqual({ value, length: encoded.length });
      }),
    );
  });

  it('decodes any byte string to the canonical value or a typed error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.constantFrom(...widths), (data, width) => {
        let decoded: { value: bigint; length: number } | undefined;
        const code = codeOf(() => {
          decoded = decodeVarint(data, 0, width);
        });
        if (code === 'OK') {
          expect(decoded!.value < 1n << BigInt(width)).toBe(true);
          expect(equalBytes(encodeVarint(decoded!.value), data.subarray(0, decoded!.length))).toBe(true);
        } else {
          expect(['TRUNCATED', 'VARINT_OVERFLOW', 'VARINT_NON_CANONICAL']).toContain(code);
        }
      }),
    );
  });

  it('reports values above the width as VARINT_OVERFLOW and padded encodings as non-canonical', () => {
    fc.assert(
      fc.property(fc.constantFrom(8, 16, 32), u64, (width, value) => {
        fc.pre(value >= 1n << BigInt(width));
        expect(codeOf(() => decodeVarint(encodeVarint(value), 0, width as VarintWidth))).toBe(
          'VARINT_OVERFLOW',
        );
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 56n) - 1n }), (value) => {
        const encoded = encodeVarint(value);
        const padded = Uint8Array.from([...encoded, 0]);
        padded[encoded.length - 1]! |= 0x80;
        expect(codeOf(() => decodeVarint(padded, 0))).toBe('VARINT_NON_CANONICAL');
      }),
    );
  });
});

describe('transaction properties', () => {
  it('round-trips', () => {
    fc.assert(
      fc.property(txArb, (tx) => {
        const encoded = serializeTransaction(tx);
        const decoded = parseTransaction(encoded);
        expect(decoded).toEqual(tx);
        expect(equalBytes(serializeTransaction(decoded), encoded)).toBe(true);
      }),
    );
  });

  it('every proper prefix is TRUNCATED, any suffix is TRAILING_BYTES', () => {
    fc.assert(
      fc.property(txArb, fc.uint8Array({ minLength: 1, maxLength: 4 }), (tx, suffix) => {
        const encoded = serializeTransaction(tx);
        for (let cut = 0; cut < encoded.length; cut++) {
          expect(codeOf(() => parseTransaction(encoded.subarray(0, cut)))).toBe('TRUNCATED');
        }
        expect(codeOf(() => parseTransaction(Uint8Array.from([...encoded, ...suffix])))).toBe(
          'TRAILING_BYTES',
        );
      }),
      { numRuns: 40 },
    );
  });

  it('a wrong input or output tag is UNKNOWN_TAG', () => {
    fc.assert(
      fc.property(txArb, u8, (tx, tag) => {
        fc.pre(tx.inputs.length > 0 && ![0xff, 0x02, 0x03].includes(tag));
        const encoded = serializeTransaction(tx);
        const at = varintLength(tx.version) + varintLength(tx.unlockTime) + varintLength(tx.inputs.length);
        encoded[at] = tag;
        expect(codeOf(() => parseTransaction(encoded))).toBe('UNKNOWN_TAG');
      }),
    );
    fc.assert(
      fc.property(txArb, u8, (tx, tag) => {
        fc.pre(tx.inputs.length === 0 && tx.outputs.length > 0 && ![0x02, 0x03].includes(tag));
        const encoded = serializeTransaction(tx);
        const at =
          varintLength(tx.version) + varintLength(tx.unlockTime) + 2 + varintLength(tx.outputs[0]!.amount);
        encoded[at] = tag;
        expect(codeOf(() => parseTransaction(encoded))).toBe('UNKNOWN_TAG');
      }),
    );
  });

  it('an overlong version varint is VARINT_NON_CANONICAL', () => {
    fc.assert(
      fc.property(txArb, (tx) => {
        const encoded = serializeTransaction(tx);
        const overlong = Uint8Array.from([encoded[0]! | 0x80, 0x00, ...encoded.subarray(1)]);
        expect(codeOf(() => parseTransaction(overlong))).toBe('VARINT_NON_CANONICAL');
      }),
    );
  });

  it('tx extra parsing never throws anything but a CodecError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (extra) => {
        codeOf(() => parseTxExtra(extra));
      }),
    );
  });
});

describe('block properties', () => {
  it('round-trips', () => {
    fc.assert(
      fc.property(blockArb, (block) => {
        const encoded = serializeBlock(block);
        const decoded = parseBlock(encoded);
        expect(decoded).toEqual(block);
        expect(equalBytes(serializeBlock(decoded), encoded)).toBe(true);
      }),
    );
  });

  it('every proper prefix is TRUNCATED, any suffix is TRAILING_BYTES', () => {
    fc.assert(
      fc.property(blockArb, fc.uint8Array({ minLength: 1, maxLength: 4 }), (block, suffix) => {
        const encoded = serializeBlock(block);
        for (let cut = 0; cut < encoded.length; cut++) {
          expect(codeOf(() => parseBlock(encoded.subarray(0, cut)))).toBe('TRUNCATED');
        }
        expect(codeOf(() => parseBlock(Uint8Array.from([...encoded, ...suffix])))).toBe('TRAILING_BYTES');
      }),
      { numRuns: 25 },
    );
  });

  it('corrupted blobs give a CodecError or decode to a block that re-serializes to the same bytes', () => {
    fc.assert(
      fc.property(
        blockArb,
        fc.array(fc.tuple(fc.nat(), u8), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (block, flips, cut) => {
          const encoded = serializeBlock(block);
          for (const [position, value] of flips) encoded[position % encoded.length] = value;
          for (const candidate of [
            encoded,
            Uint8Array.from([
              ...encoded.subarray(0, cut % encoded.length),
              ...encoded.subarray((cut % encoded.length) + 1),
            ]),
          ]) {
            let decoded: Block | undefined;
            const code = codeOf(() => {
              decoded = parseBlock(candidate);
            });
            if (code === 'OK') expect(equalBytes(serializeBlock(decoded!), candidate)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
