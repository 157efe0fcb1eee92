import { BinaryReader } from './binary-reader.js';
import { BinaryWriter } from './binary-writer.js';
import { CodecError } from './errors.js';
import { cnFastHash } from './keccak.js';
import { readTransaction, serializeTransaction, type Transaction, writeTransaction } from './transaction.js';
import { treeDepth, treeHashFromBranch } from './tree-hash.js';
import { findMergeMiningTag } from './tx-extra.js';

/** Highest block major version the daemon's deserializer accepts. */
export const MAX_BLOCK_MAJOR_VERSION = 9;
/** A blockchain branch (merge-mining depth) longer than the bits of a hash is rejected. */
export const MAX_BLOCKCHAIN_BRANCH_DEPTH = 256;

/**
 * The "parent block" of merged mining (major ≥ 2). The block's own timestamp and nonce live in it on
 * the wire but belong to `Block`; the parent has no fields of its own for them.
 */
export interface ParentBlock {
  readonly majorVersion: number;
  readonly minorVersion: number;
  readonly prevId: Uint8Array;
  /** Stored as uint16 by the daemon; 1..65535. */
  readonly transactionCount: number;
  /** tree_depth(transactionCount) hashes. */
  readonly baseTransactionBranch: readonly Uint8Array[];
  /** Must carry a merge-mining tag in its extra. */
  readonly baseTransaction: Transaction;
  /** As many hashes as the merge-mining tag's depth (≤ 256). */
  readonly blockchainBranch: readonly Uint8Array[];
}

export interface Block {
  readonly majorVersion: number;
  readonly minorVersion: number;
  readonly timestamp: bigint;
  readonly prevId: Uint8Array;
  /** uint32, little-endian on the wire. */
  readonly nonce: number;
  /** Present exactly when majorVersion ≥ 2. */
  readonly parentBlock?: ParentBlock;
  readonly baseTransaction: Transaction;
  /** Hashes of the block's other transactions (the coinbase excluded). */
  readonly transactionHashes: readonly Uint8Array[];
}

/** Where the parts of a parsed block lie in its blob (half-open byte ranges). */
export interface BlockLayout {
  /** Offset of the block nonce (inside the header for v1, inside the parent section for v ≥ 2). */
  readonly nonceOffset: number;
  /** Start of the parent section (v ≥ 2), else -1. */
  readonly parentStart: number;
  readonly parentCoinbaseStart: number;
  readonly parentCoinbaseEnd: number;
  readonly coinbaseStart: number;
  readonly coinbaseEnd: number;
}

/** Serialization modes of the parent block (spec §2.2). */
export type ParentBlockMode =
  /** As in the block blob: no merkle root. */
  | 'full'
  /** For the block id: merkle root added after the nonce, everything else kept. */
  | 'hashing'
  /** The PoW input: header fields, merkle root and transaction count only. */
  | 'header';

/** Parses a whole block blob; leftover bytes are `TRAILING_BYTES`. */
export function parseBlock(bytes: Uint8Array): Block {
  return parseBlockWithLayout(bytes).block;
}

/** `parseBlock` that also reports the byte ranges of the nonce and both coinbases. */
export function parseBlockWithLayout(bytes: Uint8Array): { block: Block; layout: BlockLayout } {
  const reader = new BinaryReader(bytes);
  const result = readBlockWithLayout(reader);
  reader.assertEnd();
  return result;
}

/**
 * Reads a block at the reader's position.
 *
 * v1:    major ‖ minor ‖ timestamp (varint) ‖ prevId 32 ‖ nonce 4 LE ‖ coinbase ‖ tx hashes
 * v2..9: major ‖ minor ‖ prevId 32 ‖ parent block ‖ coinbase ‖ tx hashes
 * parent block: parent major ‖ parent minor ‖ timestamp (varint) ‖ parent prevId 32 ‖ nonce 4 LE
 *               ‖ transactionCount (varint) ‖ tree_depth(count) × 32 ‖ parent coinbase
 *               ‖ mm-tag depth × 32
 * tx hashes: varint count ‖ count × 32.
 */
export function readBlockWithLayout(reader: BinaryReader): { block: Block; layout: BlockLayout } {
  const majorOffset = reader.offset;
  const majorVersion = reader.readVarintNumber(8);
  if (majorVersion < 1 || majorVersion > MAX_BLOCK_MAJOR_VERSION) {
    throw new CodecError('INVALID_VALUE', `block major version ${majorVersion} is not 1..9`, {
      offset: majorOffset,
      majorVersion,
    });
  }
  const minorVersion = reader.readVarintNumber(8);
  let timestamp: bigint;
  let prevId: Uint8Array;
  let nonce: number;
  let nonceOffset: number;
  let parentBlock: ParentBlock | undefined;
  let parentStart = -1;
  let parentCoinbaseStart = -1;
  let parentCoinbaseEnd = -1;
  if (majorVersion === 1) {
    timestamp = reader.readVarint(64);
    prevId = reader.readHash32();
    nonceOffset = reader.offset;
    nonce = reader.readU32LE();
  } else {
    prevId = reader.readHash32();
    parentStart = reader.offset;
    const parentMajor = reader.readVarintNumber(8);
    const parentMinor = reader.readVarintNumber(8);
    timestamp = reader.readVarint(64);
    const parentPrevId = reader.readHash32();
    nonceOffset = reader.offset;
    nonce = reader.readU32LE();
    const countOffset = reader.offset;
    const count = reader.readVarint(64);
    // The daemon reads a uint64 and keeps it as uint16; anything that would not round-trip is refused.
    if (count < 1n || count > 0xffffn) {
      throw new CodecError('INVALID_VALUE', `parent transaction count ${count} is not 1..65535`, {
        offset: countOffset,
        count: count.toString(),
      });
    }
    const transactionCount = Number(count);
    const baseTransactionBranch = readHashes(reader, treeDepth(transactionCount));
    parentCoinbaseStart = reader.offset;
    const baseTransaction = readTransaction(reader);
    parentCoinbaseEnd = reader.offset;
    const depth = mergeMiningDepth(baseTransaction, parentCoinbaseStart);
    const blockchainBranch = readHashes(reader, depth);
    parentBlock = {
      majorVersion: parentMajor,
      minorVersion: parentMinor,
      prevId: parentPrevId,
      transactionCount,
      baseTransactionBranch,
      baseTransaction,
      blockchainBranch,
    };
  }
  const coinbaseStart = reader.offset;
  const baseTransaction = readTransaction(reader);
  const coinbaseEnd = reader.offset;
  const transactionHashes = readHashes(reader, reader.readCount(32));
  const block: Block = {
    majorVersion,
    minorVersion,
    timestamp,
    prevId,
    nonce,
    ...(parentBlock === undefined ? {} : { parentBlock }),
    baseTransaction,
    transactionHashes,
  };
  return {
    block,
    layout: { nonceOffset, parentStart, parentCoinbaseStart, parentCoinbaseEnd, coinbaseStart, coinbaseEnd },
  };
}

/** Serializes a block (layout at `readBlockWithLayout`); inconsistent models are `INVALID_VALUE`. */
export function serializeBlock(block: Block): Uint8Array {
  const writer = new BinaryWriter(512);
  writeBlockHeader(writer, block);
  if (block.majorVersion >= 2) writeParentBlock(writer, block, 'full');
  writeTransaction(writer, block.baseTransaction);
  writer.writeVarint(block.transactionHashes.length);
  for (const hash of block.transactionHashes) writer.writeHash32(hash);
  return writer.toBytes();
}

/** The block header: `major minor timestamp prevId nonce` for v1, `major minor prevId` for v ≥ 2. */
export function writeBlockHeader(writer: BinaryWriter, block: Block): void {
  checkVersions(block);
  writer.writeVarint(block.majorVersion, 8).writeVarint(block.minorVersion, 8);
  if (block.majorVersion === 1) {
    writer.writeVarint(block.timestamp, 64).writeHash32(block.prevId).writeU32LE(block.nonce);
  } else {
    writer.writeHash32(block.prevId);
  }
}

/**
 * Writes the parent section of a v ≥ 2 block in one of the three modes of spec §2.2:
 *
 *   parent major ‖ parent minor ‖ block timestamp ‖ parent prevId 32 ‖ block nonce 4 LE
 *   ‖ [merkle root 32: 'hashing' and 'header' only] ‖ transactionCount varint
 *   ‖ [baseTransactionBranch ‖ parent coinbase ‖ blockchainBranch: 'full' and 'hashing' only]
 *
 * The merkle root is tree_hash_from_branch(baseTransactionBranch, keccak(parent coinbase)).
 */
export function writeParentBlock(writer: BinaryWriter, block: Block, mode: ParentBlockMode): void {
  const parent = requireParent(block);
  writer
    .writeVarint(parent.majorVersion, 8)
    .writeVarint(parent.minorVersion, 8)
    .writeVarint(block.timestamp, 64)
    .writeHash32(parent.prevId)
    .writeU32LE(block.nonce);
  const coinbaseBytes = serializeTransaction(parent.baseTransaction);
  if (mode !== 'full') {
    writer.writeHash32(treeHashFromBranch(parent.baseTransactionBranch, cnFastHash(coinbaseBytes)));
  }
  writer.writeVarint(parent.transactionCount, 16);
  if (mode === 'header') return;
  for (const hash of parent.baseTransactionBranch) writer.writeHash32(hash);
  writer.writeBytes(coinbaseBytes);
  for (const hash of parent.blockchainBranch) writer.writeHash32(hash);
}

/** `writeParentBlock` into a fresh exact-size array. */
export function serializeParentBlock(block: Block, mode: ParentBlockMode): Uint8Array {
  const writer = new BinaryWriter(256);
  writeParentBlock(writer, block, mode);
  return writer.toBytes();
}

function readHashes(reader: BinaryReader, count: number): Uint8Array[] {
  reader.ensure(count * 32);
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < count; i++) hashes.push(reader.readHash32());
  return hashes;
}

/** Blockchain branch length from the parent coinbase's mm tag, which must exist (and be ≤ 256). */
function mergeMiningDepth(parentCoinbase: Transaction, offset: number): number {
  const tag = findMergeMiningTag(parentCoinbase.extra);
  if (tag === undefined) {
    throw new CodecError('INVALID_VALUE', 'parent coinbase has no merge-mining tag', { offset });
  }
  if (tag.depth > BigInt(MAX_BLOCKCHAIN_BRANCH_DEPTH)) {
    throw new CodecError('INVALID_VALUE', `merge-mining tag depth ${tag.depth} is above 256`, {
      offset,
      depth: tag.depth.toString(),
    });
  }
  return Number(tag.depth);
}

function checkVersions(block: Block): void {
  const { majorVersion } = block;
  if (!Number.isInteger(majorVersion) || majorVersion < 1 || majorVersion > MAX_BLOCK_MAJOR_VERSION) {
    throw new CodecError('INVALID_VALUE', `block major version ${majorVersion} is not 1..9`, {
      majorVersion,
    });
  }
  if (majorVersion === 1 && block.parentBlock !== undefined) {
    throw new CodecError('INVALID_VALUE', 'a major 1 block has no parent block', { majorVersion });
  }
  if (majorVersion >= 2) requireParent(block);
}

function requireParent(block: Block): ParentBlock {
  const parent = block.parentBlock;
  if (block.majorVersion < 2 || parent === undefined) {
    throw new CodecError('INVALID_VALUE', 'a parent block is required exactly for major ≥ 2', {
      majorVersion: block.majorVersion,
    });
  }
  if (parent.baseTransactionBranch.length !== treeDepth(parent.transactionCount)) {
    throw new CodecError('INVALID_VALUE', 'base transaction branch length must be tree_depth(count)', {
      count: parent.transactionCount,
      branch: parent.baseTransactionBranch.length,
    });
  }
  const tag = findMergeMiningTag(parent.baseTransaction.extra);
  if (
    tag === undefined ||
    tag.depth > BigInt(MAX_BLOCKCHAIN_BRANCH_DEPTH) ||
    tag.depth !== BigInt(parent.blockchainBranch.length)
  ) {
    throw new CodecError('INVALID_VALUE', 'blockchain branch length must equal the merge-mining tag depth', {
      depth: tag?.depth.toString() ?? null,
      branch: parent.blockchainBranch.length,
    });
  }
  return parent;
}
