import { BinaryReader } from './binary-reader.js';
import { BinaryWriter } from './binary-writer.js';
import { CodecError } from './errors.js';
import { cnFastHash } from './keccak.js';

export const INPUT_TAG_BASE = 0xff;
export const INPUT_TAG_KEY = 0x02;
export const INPUT_TAG_MULTISIGNATURE = 0x03;
export const OUTPUT_TAG_KEY = 0x02;
export const OUTPUT_TAG_MULTISIGNATURE = 0x03;
/** Versions above this are rejected by the daemon at parse time. */
export const MAX_TRANSACTION_VERSION = 2;
const SIGNATURE_SIZE = 64;

/** Coinbase input: the height of the block it belongs to. No signatures. */
export interface BaseInput {
  readonly kind: 'base';
  readonly blockIndex: number;
}

/** Ordinary ring input; one signature per ring member. */
export interface KeyInput {
  readonly kind: 'key';
  readonly amount: bigint;
  /** Relative output offsets (uint32 each). */
  readonly outputIndexes: readonly number[];
  readonly keyImage: Uint8Array;
}

/** Deposit spend; `signatureCount` signatures. */
export interface MultisignatureInput {
  readonly kind: 'multisignature';
  readonly amount: bigint;
  readonly signatureCount: number;
  readonly outputIndex: number;
  readonly term: number;
}

export type TransactionInput = BaseInput | KeyInput | MultisignatureInput;

export interface KeyOutput {
  readonly kind: 'key';
  readonly amount: bigint;
  readonly key: Uint8Array;
}

/** Deposit output (tx version 2). */
export interface MultisignatureOutput {
  readonly kind: 'multisignature';
  readonly amount: bigint;
  readonly keys: readonly Uint8Array[];
  readonly requiredSignatureCount: number;
  readonly term: number;
}

export type TransactionOutput = KeyOutput | MultisignatureOutput;

export interface Transaction {
  readonly version: number;
  readonly unlockTime: bigint;
  readonly inputs: readonly TransactionInput[];
  readonly outputs: readonly TransactionOutput[];
  /** Raw extra bytes (see `parseTxExtra`); kept raw so re-serialization is byte-exact. */
  readonly extra: Uint8Array;
  /**
   * 64-byte signatures per input, in input order (`signatureCountOf(input)` each). An empty list is
   * accepted when serializing a transaction whose inputs need none (coinbases).
   */
  readonly signatures: readonly (readonly Uint8Array[])[];
}

/** How many signatures follow the prefix for this input: base 0, key = ring size, multisig = its count. */
export function signatureCountOf(input: TransactionInput): number {
  switch (input.kind) {
    case 'base':
      return 0;
    case 'key':
      return input.outputIndexes.length;
    case 'multisignature':
      return input.signatureCount;
  }
}

/**
 * Reads one transaction at the reader's position.
 *
 * Layout (all integers varints unless stated):
 *   version (uint8, ≤ 2) ‖ unlockTime (uint64)
 *   ‖ input count ‖ inputs: tag byte, then
 *       0xff base:  blockIndex (uint32)
 *       0x02 key:   amount (uint64) ‖ index count ‖ indexes (uint32 each) ‖ keyImage 32 B
 *       0x03 msig:  amount (uint64) ‖ signatureCount (uint8) ‖ outputIndex (uint32) ‖ term (uint32)
 *   ‖ output count ‖ outputs: amount (uint64) ‖ tag byte, then
 *       0x02 key:   key 32 B
 *       0x03 msig:  key count ‖ keys 32 B each ‖ requiredSignatureCount (uint8) ‖ term (uint32)
 *   ‖ extra length ‖ extra bytes
 *   ‖ signatures: for each input, signatureCountOf(input) × 64 B, no count prefix.
 */
export function readTransaction(reader: BinaryReader): Transaction {
  const versionOffset = reader.offset;
  const version = reader.readVarintNumber(8);
  if (version > MAX_TRANSACTION_VERSION) {
    throw new CodecError('INVALID_VALUE', `transaction version ${version} is above 2`, {
      offset: versionOffset,
      version,
    });
  }
  const unlockTime = reader.readVarint(64);
  const inputCount = reader.readCount(2);
  const inputs: TransactionInput[] = [];
  for (let i = 0; i < inputCount; i++) inputs.push(readInput(reader));
  const outputCount = reader.readCount(2);
  const outputs: TransactionOutput[] = [];
  for (let i = 0; i < outputCount; i++) outputs.push(readOutput(reader));
  const extra = reader.readVarBytes();
  const signatures = inputs.map((input) => {
    const count = signatureCountOf(input);
    reader.ensure(count * SIGNATURE_SIZE);
    const list: Uint8Array[] = [];
    for (let i = 0; i < count; i++) list.push(reader.readBytes(SIGNATURE_SIZE));
    return list;
  });
  return { version, unlockTime, inputs, outputs, extra, signatures };
}

/** Appends the serialized transaction (layout at `readTransaction`); invalid models are `INVALID_VALUE`. */
export function writeTransaction(writer: BinaryWriter, tx: Transaction): void {
  if (!Number.isInteger(tx.version) || tx.version < 0 || tx.version > MAX_TRANSACTION_VERSION) {
    throw new CodecError('INVALID_VALUE', `transaction version ${tx.version} is not 0..2`, {
      version: tx.version,
    });
  }
  writer.writeVarint(tx.version, 8).writeVarint(tx.unlockTime, 64);
  writer.writeVarint(tx.inputs.length);
  for (const input of tx.inputs) writeInput(writer, input);
  writer.writeVarint(tx.outputs.length);
  for (const output of tx.outputs) writeOutput(writer, output);
  writer.writeVarBytes(tx.extra);
  writeSignatures(writer, tx);
}

/** Parses a whole transaction; bytes left over are `TRAILING_BYTES`. */
export function parseTransaction(bytes: Uint8Array): Transaction {
  const reader = new BinaryReader(bytes);
  const tx = readTransaction(reader);
  reader.assertEnd();
  return tx;
}

export function serializeTransaction(tx: Transaction): Uint8Array {
  const writer = new BinaryWriter(256);
  writeTransaction(writer, tx);
  return writer.toBytes();
}

/**
 * Transaction hash: keccak of the entire serialized transaction (prefix and signatures in one pass),
 * for every version. Pass the serialized bytes to skip re-serialization.
 */
export function transactionHash(tx: Transaction | Uint8Array): Uint8Array {
  return cnFastHash(tx instanceof Uint8Array ? tx : serializeTransaction(tx));
}

function readInput(reader: BinaryReader): TransactionInput {
  const tagOffset = reader.offset;
  const tag = reader.readU8();
  switch (tag) {
    case INPUT_TAG_BASE:
      return { kind: 'base', blockIndex: reader.readVarintNumber(32) };
    case INPUT_TAG_KEY: {
      const amount = reader.readVarint(64);
      const indexCount = reader.readCount(1);
      const outputIndexes: number[] = [];
      for (let i = 0; i < indexCount; i++) outputIndexes.push(reader.readVarintNumber(32));
      return { kind: 'key', amount, outputIndexes, keyImage: reader.readHash32() };
    }
    case INPUT_TAG_MULTISIGNATURE: {
      const amount = reader.readVarint(64);
      const signatureCount = reader.readVarintNumber(8);
      const outputIndex = reader.readVarintNumber(32);
      const term = reader.readVarintNumber(32);
      return { kind: 'multisignature', amount, signatureCount, outputIndex, term };
    }
    default:
      throw new CodecError('UNKNOWN_TAG', `unknown input tag 0x${tag.toString(16)}`, {
        offset: tagOffset,
        tag,
      });
  }
}

function readOutput(reader: BinaryReader): TransactionOutput {
  const amount = reader.readVarint(64);
  const tagOffset = reader.offset;
  const tag = reader.readU8();
  switch (tag) {
    case OUTPUT_TAG_KEY:
      return { kind: 'key', amount, key: reader.readHash32() };
    case OUTPUT_TAG_MULTISIGNATURE: {
      const keyCount = reader.readCount(32);
      const keys: Uint8Array[] = [];
      for (let i = 0; i < keyCount; i++) keys.push(reader.readHash32());
      const requiredSignatureCount = reader.readVarintNumber(8);
      const term = reader.readVarintNumber(32);
      return { kind: 'multisignature', amount, keys, requiredSignatureCount, term };
    }
    default:
      throw new CodecError('UNKNOWN_TAG', `unknown output tag 0x${tag.toString(16)}`, {
        offset: tagOffset,
        tag,
      });
  }
}

function writeInput(writer: BinaryWriter, input: TransactionInput): void {
  switch (input.kind) {
    case 'base':
      writer.writeU8(INPUT_TAG_BASE).writeVarint(input.blockIndex, 32);
      return;
    case 'key':
      writer.writeU8(INPUT_TAG_KEY).writeVarint(input.amount, 64).writeVarint(input.outputIndexes.length);
      for (const index of input.outputIndexes) writer.writeVarint(index, 32);
      writer.writeHash32(input.keyImage);
      return;
    case 'multisignature':
      writer
        .writeU8(INPUT_TAG_MULTISIGNATURE)
        .writeVarint(input.amount, 64)
        .writeVarint(input.signatureCount, 8)
        .writeVarint(input.outputIndex, 32)
        .writeVarint(input.term, 32);
      return;
    default:
      throw new CodecError('UNKNOWN_TAG', 'unknown input kind', { kind: (input as { kind: unknown }).kind });
  }
}

function writeOutput(writer: BinaryWriter, output: TransactionOutput): void {
  writer.writeVarint(output.amount, 64);
  switch (output.kind) {
    case 'key':
      writer.writeU8(OUTPUT_TAG_KEY).writeHash32(output.key);
      return;
    case 'multisignature':
      writer.writeU8(OUTPUT_TAG_MULTISIGNATURE).writeVarint(output.keys.length);
      for (const key of output.keys) writer.writeHash32(key);
      writer.writeVarint(output.requiredSignatureCount, 8).writeVarint(output.term, 32);
      return;
    default:
      throw new CodecError('UNKNOWN_TAG', 'unknown output kind', {
        kind: (output as { kind: unknown }).kind,
      });
  }
}

function writeSignatures(writer: BinaryWriter, tx: Transaction): void {
  const needsNone = tx.inputs.every((input) => signatureCountOf(input) === 0);
  if (tx.signatures.length === 0 && needsNone) return;
  if (tx.signatures.length !== tx.inputs.length) {
    throw new CodecError('INVALID_VALUE', 'one signature list per input is required', {
      inputs: tx.inputs.length,
      signatureLists: tx.signatures.length,
    });
  }
  tx.inputs.forEach((input, i) => {
    const list = tx.signatures[i]!;
    if (list.length !== signatureCountOf(input)) {
      throw new CodecError('INVALID_VALUE', `input ${i} needs ${signatureCountOf(input)} signatures`, {
        input: i,
        signatures: list.length,
      });
    }
    for (const signature of list) {
      if (signature.length !== SIGNATURE_SIZE) {
        throw new CodecError('INVALID_VALUE', 'signature must be 64 bytes', { input: i });
      }
      writer.writeBytes(signature);
    }
  });
}
