import { type Block, parseBlock, serializeParentBlock } from '../../fuego/block.js';
import { blockId, checkMergeMiningTag, parentHashingBlob } from '../../fuego/block-hash.js';
import { checkHash } from '../../fuego/difficulty.js';
import { CodecError } from '../../fuego/errors.js';
import { bytesToHex } from '../../fuego/hex.js';
import type { PowHasher } from '../../pow/types.js';
import { TEMPLATE_MAJOR_VERSION } from './template-builder.js';

/** Why a submitted block was refused; every one of them is `-7 Block not accepted` on the wire. */
export type BlockRejectionCode =
  | 'PARSE'
  | 'DUPLICATE'
  | 'WRONG_VERSION'
  | 'STALE'
  | 'PARENT_TOO_BIG'
  | 'MERGE_MINING_TAG'
  | 'TIMESTAMP'
  | 'COINBASE'
  | 'UNKNOWN_TRANSACTION'
  | 'LOW_DIFFICULTY';

export type BlockVerdict =
  | { readonly accepted: true; readonly block: Block; readonly id: Uint8Array; readonly feesAtomic: bigint }
  | { readonly accepted: false; readonly code: BlockRejectionCode; readonly detail: string };

/** What the validator needs to know about the chain it would extend. */
export interface ValidationContext {
  /** Height the block must have (its parent's + 1; on the tip, the current block count). */
  readonly height: number;
  /** The block it must build on: the tip, or the parent of an alternative block. */
  readonly tipId: Uint8Array;
  readonly genesisId: Uint8Array;
  readonly difficulty: bigint;
  readonly medianTimestamp: bigint;
  readonly nowSeconds: bigint;
  readonly baseRewardAtomic: bigint;
  /** The coinbase must unlock at height + this (60 on Fuego). */
  readonly coinbaseMaturityBlocks: number;
  isKnownBlock(idHex: string): boolean;
  /** Fee of a mempool transaction, or undefined if the hash is not in the mempool. */
  mempoolFee(hashHex: string): bigint | undefined;
}

/** The daemon's limits: serialized parent block ≤ 2048 bytes; timestamp ≤ now + 960 s. */
const MAX_PARENT_BLOCK_SIZE = 2048;
const FUTURE_TIME_LIMIT_SECONDS = 960n;

/**
 * Independent validation of a submitted block, using only the codec (`src/fuego`) and the PoW hasher:
 * parse, duplicate, major version 9, prev id = the context's block, parent size, merge-mining tag, timestamp window,
 * coinbase (one base input at this height, unlock height + maturity, key outputs summing to reward + fees),
 * known mempool transactions, then cn/upx2 of the parent hashing blob against the difficulty.
 * `checkPow: false` is for the devnet's own miner (control API), which does no hashing.
 */
export function validateBlock(
  blob: Uint8Array,
  context: ValidationContext,
  pow: { readonly hasher: PowHasher } | { readonly checkPow: false },
): BlockVerdict {
  let block: Block;
  try {
    block = parseBlock(blob);
  } catch (error) {
    if (error instanceof CodecError) return reject('PARSE', error.message);
    throw error;
  }
  const id = blockId(block);
  if (context.isKnownBlock(bytesToHex(id))) return reject('DUPLICATE', 'block already known');
  if (block.majorVersion !== TEMPLATE_MAJOR_VERSION) {
    return reject('WRONG_VERSION', `major version ${block.majorVersion}, expected ${TEMPLATE_MAJOR_VERSION}`);
  }
  if (bytesToHex(block.prevId) !== bytesToHex(context.tipId)) {
    return reject('STALE', 'prev id is not the block this context extends');
  }
  if (serializeParentBlock(block, 'full').length > MAX_PARENT_BLOCK_SIZE) {
    return reject('PARENT_TOO_BIG', 'parent block above 2048 bytes');
  }
  if (!checkMergeMiningTag(block, context.genesisId)) {
    return reject('MERGE_MINING_TAG', 'aux block hash not found in the merge-mining tag');
  }
  if (
    block.timestamp < context.medianTimestamp ||
    block.timestamp > context.nowSeconds + FUTURE_TIME_LIMIT_SECONDS
  ) {
    return reject('TIMESTAMP', `timestamp ${block.timestamp} outside the allowed window`);
  }
  let feesAtomic = 0n;
  const seen = new Set<string>();
  for (const hash of block.transactionHashes) {
    const hex = bytesToHex(hash);
    const fee = context.mempoolFee(hex);
    if (fee === undefined || seen.has(hex))
      return reject('UNKNOWN_TRANSACTION', `transaction ${hex} not in the mempool`);
    seen.add(hex);
    feesAtomic += fee;
  }
  const coinbaseProblem = checkCoinbase(
    block,
    context.height,
    context.baseRewardAtomic + feesAtomic,
    context.coinbaseMaturityBlocks,
  );
  if (coinbaseProblem) return reject('COINBASE', coinbaseProblem);
  if ('hasher' in pow) {
    const hash = pow.hasher.hash(parentHashingBlob(block));
    if (!checkHash(hash, context.difficulty)) {
      return reject(
        'LOW_DIFFICULTY',
        `PoW hash ${bytesToHex(hash)} does not meet difficulty ${context.difficulty}`,
      );
    }
  }
  return { accepted: true, block, id, feesAtomic };
}

/** The daemon's coinbase rules; returns what is wrong, or undefined. */
function checkCoinbase(
  block: Block,
  height: number,
  expectedRewardAtomic: bigint,
  maturityBlocks: number,
): string | undefined {
  const coinbase = block.baseTransaction;
  const input = coinbase.inputs[0];
  if (coinbase.inputs.length !== 1 || input?.kind !== 'base')
    return 'coinbase must have exactly one base input';
  if (input.blockIndex !== height) return `coinbase height ${input.blockIndex}, expected ${height}`;
  if (coinbase.unlockTime !== BigInt(height + maturityBlocks)) {
    return `coinbase unlock time ${coinbase.unlockTime}, expected ${height + maturityBlocks}`;
  }
  let total = 0n;
  for (const output of coinbase.outputs) {
    if (output.kind !== 'key' || output.amount === 0n) return 'coinbase outputs must be non-zero key outputs';
    total += output.amount;
  }
  if (total !== expectedRewardAtomic) return `coinbase pays ${total}, expected ${expectedRewardAtomic}`;
  return undefined;
}

function reject(code: BlockRejectionCode, detail: string): BlockVerdict {
  return { accepted: false, code, detail };
}
