import { BinaryReader } from './binary-reader.js';
import { BinaryWriter } from './binary-writer.js';
import { CodecError } from './errors.js';

export const TX_EXTRA_TAG_PADDING = 0x00;
export const TX_EXTRA_TAG_PUBKEY = 0x01;
export const TX_EXTRA_TAG_NONCE = 0x02;
export const TX_EXTRA_TAG_MERGE_MINING = 0x03;
export const TX_EXTRA_TAG_MESSAGE = 0x04;
export const TX_EXTRA_TAG_TTL = 0x05;
/** Zero bytes allowed after the padding tag (the daemon counts the tag too and stops at 255). */
export const TX_EXTRA_PADDING_MAX_ZEROS = 254;

/** The merge-mining tag (0x03): depth of the blockchain branch and the merkle root it commits to. */
export interface MergeMiningTag {
  readonly depth: bigint;
  readonly merkleRoot: Uint8Array;
}

/** One field of a tx `extra`; `offset` is the position of its tag byte inside `extra`. */
export type TxExtraField =
  | { readonly kind: 'padding'; readonly offset: number; readonly zeroCount: number }
  | { readonly kind: 'publicKey'; readonly offset: number; readonly publicKey: Uint8Array }
  /** Extra nonce: 1 raw length byte, then the bytes, which start at `offset + 2`. */
  | { readonly kind: 'nonce'; readonly offset: number; readonly nonce: Uint8Array }
  | ({ readonly kind: 'mergeMiningTag'; readonly offset: number } & MergeMiningTag)
  | { readonly kind: 'message'; readonly offset: number; readonly data: Uint8Array }
  /** TTL: the daemon reads a varint size it then ignores, and the ttl varint. */
  | { readonly kind: 'ttl'; readonly offset: number; readonly size: number; readonly ttl: bigint }
  /** A tag the daemon has no case for: it skips the tag byte alone and goes on with the next byte. */
  | { readonly kind: 'unknown'; readonly offset: number; readonly tag: number };

/**
 * Parses `extra` field by field, as the daemon's `parseTransactionExtra` walks it:
 * - 0x00 padding: zeros to the end, at most 254 (a non-zero byte or more zeros: `INVALID_VALUE`);
 * - 0x01 tx public key: 32 bytes;
 * - 0x02 extra nonce: one raw length byte (not a varint), then the bytes;
 * - 0x03 merge-mining tag: varint length L, then L bytes holding depth varint and a 32-byte root;
 * - 0x04 message: varint length + bytes;
 * - 0x05 TTL: varint size (uint8), varint ttl;
 * - any other byte: returned as `unknown` and skipped alone.
 * Malformed data throws a CodecError (`TRUNCATED`, `VARINT_*`, `INVALID_VALUE`).
 */
export function parseTxExtra(extra: Uint8Array): TxExtraField[] {
  const reader = new BinaryReader(extra);
  const fields: TxExtraField[] = [];
  while (reader.remaining > 0) fields.push(readTxExtraField(reader, extra));
  return fields;
}

/**
 * The first merge-mining tag in `extra`, found the way the daemon's `getMergeMiningTagFromExtra` does:
 * it ignores whether the whole parse succeeded, so a tag that was read before a malformed field counts.
 */
export function findMergeMiningTag(extra: Uint8Array): MergeMiningTag | undefined {
  const reader = new BinaryReader(extra);
  while (reader.remaining > 0) {
    let field: TxExtraField;
    try {
      field = readTxExtraField(reader, extra);
    } catch (error) {
      if (error instanceof CodecError) return undefined;
      throw error;
    }
    if (field.kind === 'mergeMiningTag') return { depth: field.depth, merkleRoot: field.merkleRoot };
  }
  return undefined;
}

/**
 * Encodes a merge-mining tag field: `03 ‖ varint(L) ‖ varint(depth) ‖ root(32)` where L is the length of
 * the body. With depth 0 that is `03 21 00 <root>`, 35 bytes.
 */
export function encodeMergeMiningTag(depth: bigint | number, merkleRoot: Uint8Array): Uint8Array {
  const body = new BinaryWriter(48).writeVarint(depth).writeHash32(merkleRoot).toBytes();
  return new BinaryWriter(body.length + 4).writeU8(TX_EXTRA_TAG_MERGE_MINING).writeVarBytes(body).toBytes();
}

function readTxExtraField(reader: BinaryReader, extra: Uint8Array): TxExtraField {
  const offset = reader.offset;
  const tag = reader.readU8();
  switch (tag) {
    case TX_EXTRA_TAG_PADDING: {
      let zeroCount = 0;
      while (reader.remaining > 0) {
        const at = reader.offset;
        if (reader.readU8() !== 0) {
          throw new CodecError('INVALID_VALUE', 'non-zero byte inside tx extra padding', { offset: at });
        }
        zeroCount++;
        if (zeroCount > TX_EXTRA_PADDING_MAX_ZEROS) {
          throw new CodecError('INVALID_VALUE', 'tx extra padding longer than 254 bytes', { offset: at });
        }
      }
      return { kind: 'padding', offset, zeroCount };
    }
    case TX_EXTRA_TAG_PUBKEY:
      return { kind: 'publicKey', offset, publicKey: reader.readHash32() };
    case TX_EXTRA_TAG_NONCE: {
      const length = reader.readU8();
      return { kind: 'nonce', offset, nonce: reader.readBytes(length) };
    }
    case TX_EXTRA_TAG_MERGE_MINING: {
      const bodyLength = reader.readCount(1);
      const bodyStart = reader.offset;
      // Read the body in place so error offsets stay relative to `extra`; bytes after the root are ignored.
      const body = new BinaryReader(extra.subarray(0, bodyStart + bodyLength), bodyStart);
      const depth = body.readVarint(64);
      const merkleRoot = body.readHash32();
      reader.readBytes(bodyLength);
      return { kind: 'mergeMiningTag', offset, depth, merkleRoot };
    }
    case TX_EXTRA_TAG_MESSAGE:
      return { kind: 'message', offset, data: reader.readVarBytes() };
    case TX_EXTRA_TAG_TTL: {
      const size = reader.readVarintNumber(8);
      const ttl = reader.readVarint(64);
      return { kind: 'ttl', offset, size, ttl };
    }
    default:
      return { kind: 'unknown', offset, tag };
  }
}
