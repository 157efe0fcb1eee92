import { describe, expect, it } from 'vitest';
import type { CodecError } from '../../src/fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../src/fuego/hex.js';
import { cnFastHash } from '../../src/fuego/keccak.js';
import {
  parseTransaction,
  serializeTransaction,
  signatureCountOf,
  type Transaction,
  transactionHash,
} from '../../src/fuego/transaction.js';
import { codeOf } from '../helpers/codec-error-code.js';

const k = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
const sig = (byte: number): Uint8Array => new Uint8Array(64).fill(byte);

/** A version 2 transaction with every input and output kind. */
const deposit: Transaction = {
  version: 2,
  unlockTime: 0n,
  inputs: [
    { kind: 'key', amount: 1000n, outputIndexes: [5, 300], keyImage: k(0x11) },
    { kind: 'multisignature', amount: 8_000_000_000n, signatureCount: 1, outputIndex: 7, term: 16440 },
  ],
  outputs: [
    { kind: 'key', amount: 900n, key: k(0x22) },
    {
      kind: 'multisignature',
      amount: 8_000_000_000n,
      keys: [k(0x33)],
      requiredSignatureCount: 1,
      term: 16440,
    },
  ],
  extra: hexToBytes(`01${'44'.repeat(32)}`),
  signatures: [[sig(1), sig(2)], [sig(3)]],
};

describe('transaction codec', () => {
  it('writes the documented layout', () => {
    const hex = bytesToHex(serializeTransaction(deposit));
    const expected = [
      '02', // version
      '00', // unlock time
      '02', // 2 inputs
      `02 e807 02 05 ac02 ${'11'.repeat(32)}`, // key input: amount 1000, 2 offsets, key image
      '03 80a0d9e61d 01 07 b880 01', // multisig input: amount, signatureCount, outputIndex, term 16440
      '02', // 2 outputs
      `8407 02 ${'22'.repeat(32)}`, // amount 900, key output
      `80a0d9e61d 03 01 ${'33'.repeat(32)} 01 b88001`, // multisig output: keys, required, term
      `21 01${'44'.repeat(32)}`, // extra
      `${'01'.repeat(64)}${'02'.repeat(64)}${'03'.repeat(64)}`, // 2 + 1 signatures, no count prefix
    ]
      .join('')
      .replaceAll(' ', '');
    expect(hex).toBe(expected);
  });

  it('round-trips every input and output kind', () => {
    const bytes = serializeTransaction(deposit);
    expect(parseTransaction(bytes)).toEqual(deposit);
    expect(bytesToHex(transactionHash(deposit))).toBe(bytesToHex(cnFastHash(bytes)));
    expect(bytesToHex(transactionHash(bytes))).toBe(bytesToHex(cnFastHash(bytes)));
  });

  it('counts signatures per input kind', () => {
    expect(deposit.inputs.map(signatureCountOf)).toEqual([2, 1]);
    expect(signatureCountOf({ kind: 'base', blockIndex: 1 })).toBe(0);
  });

  it('accepts an empty signature list when no input needs one (coinbase)', () => {
    const coinbase: Transaction = {
      version: 1,
      unlockTime: 75n,
      inputs: [{ kind: 'base', blockIndex: 15 }],
      outputs: [{ kind: 'key', amount: 10n, key: k(1) }],
      extra: new Uint8Array(0),
      signatures: [],
    };
    const bytes = serializeTransaction(coinbase);
    expect(bytesToHex(bytes.subarray(0, 6))).toBe('014b01ff0f01');
    expect(parseTransaction(bytes)).toEqual({ ...coinbase, signatures: [[]] });
    expect(bytesToHex(serializeTransaction(parseTransaction(bytes)))).toBe(bytesToHex(bytes));
  });

  it('rejects versions above 2 when reading and writing', () => {
    expect(codeOf(() => parseTransaction(hexToBytes('0300000000')))).toBe('INVALID_VALUE');
    expect(codeOf(() => serializeTransaction({ ...deposit, version: 3 }))).toBe('INVALID_VALUE');
    expect(codeOf(() => parseTransaction(hexToBytes('0000000000')))).toBe('OK');
  });

  it('rejects unknown input and output tags with UNKNOWN_TAG at the tag offset', () => {
    const bytes = serializeTransaction(deposit);
    const badInput = bytes.slice();
    badInput[3] = 0x04;
    try {
      parseTransaction(badInput);
      expect.unreachable();
    } catch (error) {
      expect((error as CodecError).code).toBe('UNKNOWN_TAG');
      expect((error as CodecError).data).toMatchObject({ offset: 3, tag: 4 });
    }
    // Monero's 0xff-less key input and tagged-key output tags mean nothing here.
    expect(codeOf(() => parseTransaction(hexToBytes('010001010001')))).toBe('UNKNOWN_TAG');
    expect(codeOf(() => parseTransaction(hexToBytes('0100010000')))).toBe('UNKNOWN_TAG');
  });

  it('rejects field values that overflow their declared width', () => {
    // multisig input signatureCount is uint8: 256 = 8002.
    expect(codeOf(() => parseTransaction(hexToBytes('0200010301800201010000')))).toBe('VARINT_OVERFLOW');
    // version is uint8.
    expect(codeOf(() => parseTransaction(hexToBytes('8002000000')))).toBe('VARINT_OVERFLOW');
    // base input height is uint32.
    expect(codeOf(() => parseTransaction(hexToBytes('010001ff8080808010000000')))).toBe('VARINT_OVERFLOW');
    // non-canonical unlock time.
    expect(codeOf(() => parseTransaction(hexToBytes('01800000000000')))).toBe('VARINT_NON_CANONICAL');
  });

  it('refuses inconsistent models', () => {
    expect(codeOf(() => serializeTransaction({ ...deposit, signatures: [[sig(1)], [sig(3)]] }))).toBe(
      'INVALID_VALUE',
    );
    expect(codeOf(() => serializeTransaction({ ...deposit, signatures: [] }))).toBe('INVALID_VALUE');
    expect(
      codeOf(() =>
        serializeTransaction({ ...deposit, signatures: [[sig(1), new Uint8Array(63)], [sig(3)]] }),
      ),
    ).toBe('INVALID_VALUE');
    expect(codeOf(() => serializeTransaction({ ...deposit, unlockTime: -1n }))).toBe('INVALID_VALUE');
    expect(
      codeOf(() =>
        serializeTransaction({
          ...deposit,
          inputs: [{ kind: 'multisignature', amount: 1n, signatureCount: 256, outputIndex: 0, term: 0 }],
        }),
      ),
    ).toBe('INVALID_VALUE');
  });

  it('rejects trailing bytes and truncation', () => {
    const bytes = serializeTransaction(deposit);
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(codeOf(() => parseTransaction(longer))).toBe('TRAILING_BYTES');
    expect(codeOf(() => parseTransaction(bytes.subarray(0, bytes.length - 1)))).toBe('TRUNCATED');
  });
});
