import { BinaryWriter } from './binary-writer.js';
import type { Block, BlockLayout } from './block.js';
import { serializeTransaction, signatureCountOf, type Transaction } from './transaction.js';
import { encodeMergeMiningTag } from './tx-extra.js';
import { encodeVarint } from './varint.js';

/*
 * The fixed bytes of every job of one block template, built once per template: the frame of the
 * block hashing blob (aux input), the PoW input and the submitblock blob, each with the offsets a
 * job fills in (merkle root, mm root, nonce, extra nonce). BlockTemplate keeps them.
 */

/**
 * How the parent block of a v ≥ 2 job is filled in (spec §5.6).
 *
 * 'pool' (the default): parent major 1, minor 0, parent prevId = the block's prevId, parent coinbase
 * version 1 with only the mm tag in its extra. This is what cryptoforknote-util (blob type 2, used by
 * the public XFG pools) builds, so our blocks are byte-identical to what XMRig-era pools submit, and the
 * daemon's own serializer and checkProofOfWork accept it (vector `block_v9_pool_flow`).
 *
 * 'daemon-miner': keep the template's parent fields (major 0, prevId zero, coinbase version 0) and only
 * write the mm-tag root, as the daemon's built-in miner does. Equally valid, but a different PoW input
 * and block id (vector `block_v9_daemon_miner_flow`, and the block fuegod accepted at height 15).
 */
export type ParentStyle = 'pool' | 'daemon-miner';

/** varint(len bhb) ‖ bhb with a zero merkle root, and where the bhb and its root start in it. */
export interface AuxInput {
  readonly input: Uint8Array;
  readonly bhbOffset: number;
  readonly rootOffset: number;
}

/** Block hashing blob = header ‖ root ‖ varint(count); the header is the blob's first bytes. */
export function auxInputOf(block: Block, blob: Uint8Array, layout: BlockLayout): AuxInput {
  const headerLength = block.majorVersion === 1 ? layout.nonceOffset + 4 : 34;
  const countBytes = encodeVarint(1 + block.transactionHashes.length);
  const bhbLength = headerLength + 32 + countBytes.length;
  const lengthPrefix = encodeVarint(bhbLength);
  const bhbOffset = lengthPrefix.length;
  const rootOffset = bhbOffset + headerLength;
  const input = new Uint8Array(bhbOffset + bhbLength);
  input.set(lengthPrefix, 0);
  input.set(blob.subarray(0, headerLength), bhbOffset);
  input.set(countBytes, rootOffset + 32);
  // Major 1 hashes the header with its nonce; each job writes the nonce, so the frame has zeros.
  if (block.majorVersion === 1)
    input.fill(0, bhbOffset + layout.nonceOffset, bhbOffset + layout.nonceOffset + 4);
  return { input, bhbOffset, rootOffset };
}

/** The PoW input and submit blob of a template's jobs, with the offsets each job fills in. */
export interface JobWork {
  readonly nonceOffset: number;
  /** PoW input with zero nonce and zero parent merkle root at powRootOffset (empty for major 1). */
  readonly powInput: Uint8Array;
  readonly powRootOffset: number;
  readonly parentCoinbase: Uint8Array | null;
  readonly parentCoinbaseRootOffset: number;
  readonly parentBranch: readonly Uint8Array[];
  /** The submitblock blob with zero nonce, zero mm root and the template's extra-nonce area. */
  readonly submit: Uint8Array;
  readonly submitNonceOffset: number;
  readonly submitRootOffset: number;
  readonly submitExtraNonceOffset: number;
}

/** Major 1: the PoW input is the block hashing blob itself, nonce in the header; no parent block. */
export function majorOneWork(blob: Uint8Array, layout: BlockLayout, reservedOffset: number): JobWork {
  return {
    nonceOffset: layout.nonceOffset,
    powInput: new Uint8Array(0),
    powRootOffset: -1,
    parentCoinbase: null,
    parentCoinbaseRootOffset: -1,
    parentBranch: [],
    submit: blob.slice(),
    submitNonceOffset: layout.nonceOffset,
    submitRootOffset: -1,
    submitExtraNonceOffset: reservedOffset,
  };
}

/** Major ≥ 2: the PoW runs over a parent block whose coinbase carries the mm tag (spec §5.6). */
export function mergeMinedWork(
  block: Block,
  blob: Uint8Array,
  layout: BlockLayout,
  style: ParentStyle,
  extraNonceInCoinbase: number,
): JobWork {
  const parts = parentParts(block, style);
  const parentCoinbase = serializeTransaction(parts.coinbase);
  const coinbaseSignatureBytes = parts.coinbase.inputs.reduce((n, i) => n + 64 * signatureCountOf(i), 0);
  // The extra is exactly the mm tag, so its root is the last 32 bytes before the signatures.
  const parentCoinbaseRootOffset = parentCoinbase.length - coinbaseSignatureBytes - 32;

  // Parent header fields, shared by the PoW input and the submitted blob.
  const head = new BinaryWriter(80)
    .writeVarint(parts.majorVersion, 8)
    .writeVarint(parts.minorVersion, 8)
    .writeVarint(block.timestamp, 64)
    .writeHash32(parts.prevId)
    .writeU32LE(0)
    .toBytes();
  const txCount = encodeVarint(parts.transactionCount);
  const nonceOffset = head.length - 4;
  const powInput = new BinaryWriter(128)
    .writeBytes(head)
    .writeHash32(new Uint8Array(32))
    .writeBytes(txCount)
    .toBytes();

  const submit = new BinaryWriter(blob.length + 64).writeBytes(blob.subarray(0, layout.parentStart));
  const submitNonceOffset = submit.length + nonceOffset;
  submit.writeBytes(head).writeBytes(txCount);
  for (const hash of parts.baseTransactionBranch) submit.writeHash32(hash);
  const submitRootOffset = submit.length + parentCoinbaseRootOffset;
  submit.writeBytes(parentCoinbase);
  // Depth 0: no blockchain branch.
  const submitExtraNonceOffset = submit.length + extraNonceInCoinbase;
  submit.writeBytes(blob.subarray(layout.coinbaseStart));
  return {
    nonceOffset,
    powInput,
    powRootOffset: head.length,
    parentCoinbase,
    parentCoinbaseRootOffset,
    parentBranch: parts.baseTransactionBranch,
    submit: submit.toBytes(),
    submitNonceOffset,
    submitRootOffset,
    submitExtraNonceOffset,
  };
}

interface ParentParts {
  readonly majorVersion: number;
  readonly minorVersion: number;
  readonly prevId: Uint8Array;
  readonly transactionCount: number;
  readonly baseTransactionBranch: readonly Uint8Array[];
  /** The parent coinbase with its extra set to an mm tag of depth 0 and a zero root. */
  readonly coinbase: Transaction;
}

function parentParts(block: Block, style: ParentStyle): ParentParts {
  const mmTagWithZeroRoot = encodeMergeMiningTag(0, new Uint8Array(32));
  if (style === 'pool') {
    return {
      majorVersion: 1,
      minorVersion: 0,
      prevId: block.prevId,
      transactionCount: 1,
      baseTransactionBranch: [],
      coinbase: {
        version: 1,
        unlockTime: 0n,
        inputs: [],
        outputs: [],
        extra: mmTagWithZeroRoot,
        signatures: [],
      },
    };
  }
  const parent = block.parentBlock!;
  return {
    majorVersion: parent.majorVersion,
    minorVersion: parent.minorVersion,
    prevId: parent.prevId,
    transactionCount: parent.transactionCount,
    baseTransactionBranch: parent.baseTransactionBranch,
    // The daemon's miner (adjustMergeMiningTag) replaces the whole extra by the tag.
    coinbase: { ...parent.baseTransaction, extra: mmTagWithZeroRoot },
  };
}

/** Keccak's rate: the sponge absorbs 136 bytes per permutation. */
const KECCAK_BLOCK_BYTES = 136;
/** A step's kept sponge state in the work buffer: 200 bytes and a flag (native/hash_chain.h). */
const PREFIX_CACHE_BYTES = 201;

/**
 * The per-job hashes of a template as one chain over one work buffer, for a hash that runs such a
 * chain in one call (`FastHash.chain`, the native addon's). The work buffer holds, in order:
 *
 *   coinbase ‖ coinbase branch (32·d) ‖ aux input ‖ parent coinbase ‖ parent branch ‖ PoW input
 *   ‖ prefix cache (201)
 *
 * (for major 1 the aux input is followed by the cache). Steps, seven words each after the count
 * (src, len, branch, depth, dst, cache, cached blocks): hash the coinbase, up its branch, into the
 * aux input's merkle root; (major ≥ 2) hash the aux input into the parent coinbase's mm root; hash
 * the parent coinbase, up the parent branch, into the PoW input's root. The coinbase's full
 * 136-byte blocks before the extra nonce are the same for every job: the chain keeps the sponge
 * state after them in the cache and absorbs only the rest (a 231-byte coinbase: one permutation
 * of two). The job's blob is then `work[blobFrom, blobFrom + blobLength)`.
 */
export interface HashChainPlan {
  /** The template's bytes; each job writes its extra nonce at extraNonceAt, the chain the roots. */
  readonly work: Uint8Array;
  readonly steps: Uint32Array;
  readonly extraNonceAt: number;
  readonly blobFrom: number;
  readonly blobLength: number;
}

/** What the chain is built from (BlockTemplate's per-template parts). */
export interface HashChainParts {
  readonly coinbase: Uint8Array;
  readonly extraNonceInCoinbase: number;
  readonly coinbaseBranch: readonly Uint8Array[];
  readonly aux: AuxInput;
  readonly work: JobWork;
}

export function hashChainPlan(parts: HashChainParts): HashChainPlan {
  const { coinbase, coinbaseBranch, aux, work } = parts;
  const regions = [coinbase, ...coinbaseBranch, aux.input];
  if (work.parentCoinbase !== null) regions.push(work.parentCoinbase, ...work.parentBranch, work.powInput);
  const cacheAt = regions.reduce((n, r) => n + r.length, 0);
  // The cache (state and flag) starts zero: the first job fills it.
  const buffer = new Uint8Array(cacheAt + PREFIX_CACHE_BYTES);
  let offset = 0;
  for (const region of regions) {
    buffer.set(region, offset);
    offset += region.length;
  }
  const branchAt = coinbase.length;
  const auxAt = branchAt + 32 * coinbaseBranch.length;
  const cachedBlocks = Math.floor(parts.extraNonceInCoinbase / KECCAK_BLOCK_BYTES);
  const steps = [1, 0, coinbase.length, branchAt, coinbaseBranch.length, auxAt + aux.rootOffset];
  steps.push(cacheAt, cachedBlocks);
  if (work.parentCoinbase === null) {
    const blobFrom = auxAt + aux.bhbOffset;
    const blobLength = aux.input.length - aux.bhbOffset;
    return plan(buffer, steps, parts.extraNonceInCoinbase, blobFrom, blobLength);
  }
  const parentAt = auxAt + aux.input.length;
  const parentBranchAt = parentAt + work.parentCoinbase.length;
  const powAt = parentBranchAt + 32 * work.parentBranch.length;
  steps[0] = 3;
  steps.push(auxAt, aux.input.length, 0, 0, parentAt + work.parentCoinbaseRootOffset, 0, 0);
  steps.push(parentAt, work.parentCoinbase.length, parentBranchAt, work.parentBranch.length);
  steps.push(powAt + work.powRootOffset, 0, 0);
  return plan(buffer, steps, parts.extraNonceInCoinbase, powAt, work.powInput.length);
}

function plan(
  work: Uint8Array,
  steps: number[],
  extraNonceAt: number,
  blobFrom: number,
  blobLength: number,
): HashChainPlan {
  return { work, steps: Uint32Array.from(steps), extraNonceAt, blobFrom, blobLength };
}
