import { BinaryWriter } from './binary-writer.js';
import { type Block, serializeParentBlock, writeBlockHeader, writeParentBlock } from './block.js';
import { hexToBytes } from './hex.js';
import { cnFastHash } from './keccak.js';
import { transactionHash } from './transaction.js';
import { treeHash, treeHashFromBranch } from './tree-hash.js';
import { findMergeMiningTag } from './tx-extra.js';
import { encodeVarint } from './varint.js';

/**
 * Id of the mainnet genesis block (spec §9), computed from the daemon's genesis parameters.
 * The merge-mining check uses it as the path of the blockchain branch.
 */
export const MAINNET_GENESIS_BLOCK_ID: Uint8Array = hexToBytes(
  'ef32c9b0c293a377f4e5c796c833285226c78ff0195d5f9f9eb55c011863c14b',
);

/** Root of the block's transaction tree: leaves are the coinbase hash, then `transactionHashes`. */
export function transactionMerkleRoot(block: Block): Uint8Array {
  return treeHash([transactionHash(block.baseTransaction), ...block.transactionHashes]);
}

/**
 * `get_block_hashing_blob`: serialized header ‖ transaction merkle root (32) ‖ varint(1 + tx hashes).
 * v ≥ 2: `major minor prevId root count`, 67 bytes below 127 transactions.
 * v1:    `major minor timestamp prevId nonce root count` (the v1 PoW input).
 */
export function blockHashingBlob(block: Block): Uint8Array {
  const writer = new BinaryWriter(128);
  writeBlockHeader(writer, block);
  writer.writeHash32(transactionMerkleRoot(block)).writeVarint(1 + block.transactionHashes.length);
  return writer.toBytes();
}

/**
 * Aux-header hash, the value the merge-mining tag must commit to: keccak(varint(len) ‖ bhb), because the
 * daemon hashes the blob as a serialized byte string.
 */
export function auxHeaderHash(block: Block): Uint8Array {
  return hashAsByteString(blockHashingBlob(block));
}

/**
 * Block id (`get_block_hash`): keccak(varint(L) ‖ X) where X = block hashing blob, followed for
 * major ≥ 2 by the parent block in "hashing" mode, and L = len(X).
 */
export function blockId(block: Block): Uint8Array {
  const bhb = blockHashingBlob(block);
  if (block.majorVersion < 2) return hashAsByteString(bhb);
  const writer = new BinaryWriter(bhb.length + 256);
  writer.writeBytes(bhb);
  writeParentBlock(writer, block, 'hashing');
  return hashAsByteString(writer.toBytes());
}

/**
 * The proof-of-work input. Major ≥ 2: the parent block in header-only mode,
 *   0 parent major ‖ 1 parent minor ‖ 2 timestamp (5 B today) ‖ 7 parent prevId ‖ 39 nonce LE
 *   ‖ 43 parent merkle root ‖ 75 transaction count — 76 bytes for a pool block.
 * Major 1: the block hashing blob.
 */
export function parentHashingBlob(block: Block): Uint8Array {
  return block.majorVersion < 2 ? blockHashingBlob(block) : serializeParentBlock(block, 'header');
}

/**
 * The daemon's merge-mining check (`checkProofOfWorkV2`, minus the PoW itself): the parent coinbase
 * has an mm tag, the blockchain branch has at most 256 hashes, and walking the branch from the aux
 * hash with the genesis id as path gives the tag's merkle root. Always false for major 1.
 */
export function checkMergeMiningTag(
  block: Block,
  genesisBlockId: Uint8Array = MAINNET_GENESIS_BLOCK_ID,
): boolean {
  const parent = block.parentBlock;
  if (block.majorVersion < 2 || parent === undefined) return false;
  const tag = findMergeMiningTag(parent.baseTransaction.extra);
  if (tag === undefined || parent.blockchainBranch.length > 256) return false;
  const root = treeHashFromBranch(parent.blockchainBranch, auxHeaderHash(block), genesisBlockId);
  return bytesEqual(root, tag.merkleRoot);
}

/** keccak(varint(len) ‖ bytes): the daemon's object hash of a raw byte array. */
export function hashAsByteString(bytes: Uint8Array): Uint8Array {
  const prefix = encodeVarint(bytes.length);
  const data = new Uint8Array(prefix.length + bytes.length);
  data.set(prefix, 0);
  data.set(bytes, prefix.length);
  return cnFastHash(data);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
