import { type Block, type BlockLayout, parseBlockWithLayout } from './block.js';
import { CodecError } from './errors.js';
import {
  auxInputOf,
  type HashChainPlan,
  hashChainPlan,
  majorOneWork,
  mergeMinedWork,
  type ParentStyle,
} from './job-work.js';
import { cnFastHash, type FastHash } from './keccak.js';
import { signatureCountOf, type Transaction } from './transaction.js';
import { treeBranch, treeHashFromBranch } from './tree-hash.js';
import { parseTxExtra } from './tx-extra.js';

export interface BlockTemplateInput {
  /** `blocktemplate_blob`, decoded. */
  readonly blob: Uint8Array;
  /** `reserved_offset` from getblocktemplate. */
  readonly reservedOffset: number;
  /** The `reserve_size` the template was requested with. */
  readonly reserveSize: number;
  /** `height` from getblocktemplate; checked against the coinbase input when given. */
  readonly height?: number;
  readonly difficulty?: bigint;
  /** How the merge-mining parent block is built (config `pool.parentStyle`, job-work.ts). */
  readonly parentStyle: ParentStyle;
  /**
   * `cn_fast_hash` for the per-job work (default: the pure one). The pool passes the native
   * addon's, which gives the same bytes about ten times faster: job building is its hot path.
   */
  readonly fastHash?: FastHash;
}

/** What a miner gets for one extra nonce, and the intermediate values (for logs and tests). */
export interface JobBlobs {
  /** The PoW input with a zero nonce: 76 bytes for a v9 template (nonce at 39..42). */
  readonly hashingBlob: Uint8Array;
  /** Where the 4 nonce bytes go in `hashingBlob`. */
  readonly nonceOffset: number;
  /** keccak of the coinbase after writing the extra nonce. */
  readonly coinbaseHash: Uint8Array;
  /** Transaction merkle root (coinbase + template transactions). */
  readonly merkleRoot: Uint8Array;
  /** `major minor [ts prevId nonce | prevId] root count`. */
  readonly blockHashingBlob: Uint8Array;
  /** keccak(varint(len) ‖ blockHashingBlob): the root the mm tag commits to. */
  readonly auxHash: Uint8Array;
  /** The parent coinbase carrying the mm tag (40 bytes in 'pool' style); null for major 1. */
  readonly parentCoinbase: Uint8Array | null;
}

/**
 * A parsed getblocktemplate result, with everything a job needs precomputed. Immutable: the byte arrays
 * it exposes are its own copies and must not be modified.
 */
export class BlockTemplate {
  readonly block: Block;
  readonly blob: Uint8Array;
  readonly prevId: Uint8Array;
  readonly majorVersion: number;
  readonly height: number;
  readonly timestamp: bigint;
  readonly difficulty: bigint | undefined;
  readonly parentStyle: ParentStyle;
  readonly reservedOffset: number;
  readonly reserveSize: number;
  /** The block coinbase is `blob[coinbaseStart, coinbaseEnd)`. */
  readonly coinbaseStart: number;
  readonly coinbaseEnd: number;
  /** Usable extra-nonce bytes are `blob[extraNonceOffset, extraNonceOffset + extraNonceCapacity)`. */
  readonly extraNonceOffset: number;
  readonly extraNonceCapacity: number;
  /** Merkle branch of the coinbase (leaf 0) over the template's transactions. */
  readonly coinbaseBranch: readonly Uint8Array[];
  /** Where the nonce goes in each job's hashing blob. */
  readonly nonceOffset: number;

  readonly #fastHash: FastHash;
  readonly #coinbase: Uint8Array;
  readonly #extraNonceInCoinbase: number;
  /** varint(len bhb) ‖ bhb with a zero merkle root at #auxRootOffset. */
  readonly #auxInput: Uint8Array;
  readonly #auxRootOffset: number;
  readonly #bhbOffset: number;
  /** PoW input with zero nonce and (v ≥ 2) zero parent merkle root at #powRootOffset. */
  readonly #powInput: Uint8Array;
  readonly #powRootOffset: number;
  readonly #parentCoinbase: Uint8Array | null;
  readonly #parentCoinbaseRootOffset: number;
  readonly #parentBranch: readonly Uint8Array[];
  /** The submitblock blob with zero nonce, zero mm root and the template's extra-nonce area. */
  readonly #submit: Uint8Array;
  readonly #submitNonceOffset: number;
  readonly #submitRootOffset: number;
  readonly #submitExtraNonceOffset: number;
  /**
   * Working copies for buildHashingBlob, reused from call to call: each call overwrites the same
   * bytes (extra nonce, merkle root, mm root) before hashing, and it runs synchronously.
   */
  #scratch: { coinbase: Uint8Array; auxInput: Uint8Array; parentCoinbase: Uint8Array | null } | undefined;
  /** With a hash that runs chains (the native addon's): all of a job's hashes in one call. */
  readonly #chain: HashChainPlan | undefined;

  /** Use `parseBlockTemplate`. */
  constructor(input: BlockTemplateInput) {
    const { reservedOffset, reserveSize } = input;
    if (!Number.isInteger(reserveSize) || reserveSize < 1 || reserveSize > 255) {
      throw new CodecError('INVALID_VALUE', 'reserve size must be 1..255', { reserveSize });
    }
    const blob = input.blob.slice();
    const { block, layout } = parseBlockWithLayout(blob);
    const height = checkedCoinbaseHeight(block, layout, input.height);
    // The daemon's reserved_offset is one byte past the start of the nonce data, so only
    // reserve_size − 1 bytes from it are ours (spec §5.6 step 2).
    const capacity = reserveSize - 1;
    checkExtraNonceArea(block.baseTransaction, layout.coinbaseEnd, reservedOffset, capacity);

    this.block = block;
    this.blob = blob;
    this.prevId = block.prevId;
    this.majorVersion = block.majorVersion;
    this.height = height;
    this.timestamp = block.timestamp;
    this.difficulty = input.difficulty;
    this.parentStyle = input.parentStyle;
    this.#fastHash = input.fastHash ?? cnFastHash;

    this.reservedOffset = reservedOffset;
    this.reserveSize = reserveSize;
    this.coinbaseStart = layout.coinbaseStart;
    this.coinbaseEnd = layout.coinbaseEnd;
    this.extraNonceOffset = reservedOffset;
    this.extraNonceCapacity = capacity;
    this.coinbaseBranch = treeBranch([new Uint8Array(32), ...block.transactionHashes]);

    this.#coinbase = blob.slice(layout.coinbaseStart, layout.coinbaseEnd);
    this.#extraNonceInCoinbase = reservedOffset - layout.coinbaseStart;

    const aux = auxInputOf(block, blob, layout);
    this.#auxInput = aux.input;
    this.#bhbOffset = aux.bhbOffset;
    this.#auxRootOffset = aux.rootOffset;

    const work =
      block.majorVersion === 1
        ? majorOneWork(blob, layout, reservedOffset)
        : mergeMinedWork(block, blob, layout, this.parentStyle, this.#extraNonceInCoinbase);
    this.nonceOffset = work.nonceOffset;
    this.#powInput = work.powInput;
    this.#powRootOffset = work.powRootOffset;
    this.#parentCoinbase = work.parentCoinbase;
    this.#parentCoinbaseRootOffset = work.parentCoinbaseRootOffset;
    this.#parentBranch = work.parentBranch;
    this.#submit = work.submit;
    this.#submitNonceOffset = work.submitNonceOffset;
    this.#submitRootOffset = work.submitRootOffset;
    this.#submitExtraNonceOffset = work.submitExtraNonceOffset;
    this.#chain = this.#fastHash.chain
      ? hashChainPlan({
          coinbase: this.#coinbase,
          extraNonceInCoinbase: this.#extraNonceInCoinbase,
          coinbaseBranch: this.coinbaseBranch,
          aux,
          work,
        })
      : undefined;
  }

  /** See `buildJobHashingBlob`. */
  buildJob(extraNonce: Uint8Array): JobBlobs {
    this.#checkExtraNonce(extraNonce);
    const coinbase = this.#coinbase.slice();
    coinbase.set(extraNonce, this.#extraNonceInCoinbase);
    const hash = this.#fastHash;
    const coinbaseHash = hash(coinbase);
    const merkleRoot = treeHashFromBranch(this.coinbaseBranch, coinbaseHash, undefined, hash);
    const auxInput = this.#auxInput.slice();
    auxInput.set(merkleRoot, this.#auxRootOffset);
    const auxHash = hash(auxInput);
    const blockHashingBlob = auxInput.subarray(this.#bhbOffset);
    if (this.#parentCoinbase === null) {
      return {
        hashingBlob: blockHashingBlob.slice(),
        nonceOffset: this.nonceOffset,
        coinbaseHash,
        merkleRoot,
        blockHashingBlob,
        auxHash,
        parentCoinbase: null,
      };
    }
    const parentCoinbase = this.#parentCoinbase.slice();
    parentCoinbase.set(auxHash, this.#parentCoinbaseRootOffset);
    const parentRoot = treeHashFromBranch(this.#parentBranch, hash(parentCoinbase), undefined, hash);
    const hashingBlob = this.#powInput.slice();
    hashingBlob.set(parentRoot, this.#powRootOffset);
    return {
      hashingBlob,
      nonceOffset: this.nonceOffset,
      coinbaseHash,
      merkleRoot,
      blockHashingBlob,
      auxHash,
      parentCoinbase,
    };
  }

  /**
   * Only `buildJob(extraNonce).hashingBlob`, with less work: no intermediate results kept and the
   * working buffers reused. This is the per-miner cost of every new template (thousands of miners
   * at once), so it allocates nothing but the returned blob.
   */
  buildHashingBlob(extraNonce: Uint8Array): Uint8Array {
    this.#checkExtraNonce(extraNonce);
    const chain = this.#chain;
    if (chain !== undefined) {
      // Restore the whole area first: an earlier, longer extra nonce may still be in it.
      const area = this.#extraNonceInCoinbase;
      chain.work.set(this.#coinbase.subarray(area, area + this.extraNonceCapacity), area);
      chain.work.set(extraNonce, area);
      const hashingBlob = Buffer.allocUnsafe(chain.blobLength);
      this.#fastHash.chain!(chain.work, chain.steps, hashingBlob, chain.blobFrom);
      return hashingBlob;
    }
    this.#scratch ??= {
      coinbase: this.#coinbase.slice(),
      auxInput: this.#auxInput.slice(),
      parentCoinbase: this.#parentCoinbase?.slice() ?? null,
    };
    const { coinbase, auxInput, parentCoinbase } = this.#scratch;
    // Restore the whole area first: an earlier, longer extra nonce may still be in it.
    const area = this.#extraNonceInCoinbase;
    coinbase.set(this.#coinbase.subarray(area, area + this.extraNonceCapacity), area);
    coinbase.set(extraNonce, area);
    this.#hashFromBranch(this.coinbaseBranch, coinbase, auxInput, this.#auxRootOffset);
    if (parentCoinbase === null) return pooledCopy(auxInput.subarray(this.#bhbOffset));
    this.#hashFromBranch([], auxInput, parentCoinbase, this.#parentCoinbaseRootOffset);
    const hashingBlob = pooledCopy(this.#powInput);
    this.#hashFromBranch(this.#parentBranch, parentCoinbase, hashingBlob, this.#powRootOffset);
    return hashingBlob;
  }

  /**
   * Writes the merkle root of `leafData`'s hash with `branch` (leaf 0) to `out[offset..]`; with no
   * branch the root is the hash itself, written straight in when the hash can do that.
   */
  #hashFromBranch(
    branch: readonly Uint8Array[],
    leafData: Uint8Array,
    out: Uint8Array,
    offset: number,
  ): void {
    const hash = this.#fastHash;
    if (branch.length === 0 && hash.into) {
      hash.into(leafData, out, offset);
      return;
    }
    out.set(treeHashFromBranch(branch, hash(leafData), undefined, hash), offset);
  }

  /** See `buildSubmitBlob`. */
  buildSubmitBlob(extraNonce: Uint8Array, nonce: number): Uint8Array {
    if (!Number.isInteger(nonce) || nonce < 0 || nonce > 0xffffffff) {
      throw new CodecError('INVALID_VALUE', 'nonce must be a uint32', { nonce });
    }
    this.#checkExtraNonce(extraNonce);
    const out = this.#submit.slice();
    out.set(extraNonce, this.#submitExtraNonceOffset);
    if (this.#submitRootOffset >= 0) out.set(this.buildJob(extraNonce).auxHash, this.#submitRootOffset);
    const o = this.#submitNonceOffset;
    out[o] = nonce & 0xff;
    out[o + 1] = (nonce >>> 8) & 0xff;
    out[o + 2] = (nonce >>> 16) & 0xff;
    out[o + 3] = (nonce >>> 24) & 0xff;
    return out;
  }

  #checkExtraNonce(extraNonce: Uint8Array): void {
    if (extraNonce.length > this.extraNonceCapacity) {
      throw new CodecError('INVALID_VALUE', `extra nonce longer than ${this.extraNonceCapacity} bytes`, {
        length: extraNonce.length,
        capacity: this.extraNonceCapacity,
      });
    }
  }
}

/** Parses and validates a getblocktemplate result and precomputes the per-job work. */
export function parseBlockTemplate(input: BlockTemplateInput): BlockTemplate {
  const template = new BlockTemplate(input);
  Object.freeze(template);
  return template;
}

/**
 * The miner job for one extra nonce (spec §5.6 steps 3–7): write the extra nonce into a copy of the
 * coinbase, hash it, walk the precomputed branch to the merkle root, hash the block hashing blob into the
 * aux hash, put it into the parent coinbase's mm tag, and fill the parent merkle root into the PoW input.
 * Bytes of the area not covered by `extraNonce` keep the template's values. Longer than the capacity:
 * `INVALID_VALUE`.
 */
export function buildJobHashingBlob(template: BlockTemplate, extraNonce: Uint8Array): JobBlobs {
  return template.buildJob(extraNonce);
}

/**
 * The block for submitblock (spec §5.6 step 9): the template with the parent section replaced by the one
 * the PoW was computed over (with the mm root of this extra nonce), the extra nonce written, and the
 * nonce (uint32, little-endian) at the nonce position.
 */
export function buildSubmitBlob(template: BlockTemplate, extraNonce: Uint8Array, nonce: number): Uint8Array {
  return template.buildSubmitBlob(extraNonce, nonce);
}

/** The coinbase's height, once the coinbase has its one base input and agrees with `height`. */
function checkedCoinbaseHeight(block: Block, layout: BlockLayout, height: number | undefined): number {
  const coinbase = block.baseTransaction;
  const baseInput = coinbase.inputs[0];
  if (coinbase.inputs.length !== 1 || baseInput?.kind !== 'base') {
    throw new CodecError('INVALID_VALUE', 'template coinbase must have exactly one base input', {
      offset: layout.coinbaseStart,
    });
  }
  if (height !== undefined && height !== baseInput.blockIndex) {
    throw new CodecError('INVALID_VALUE', 'template height differs from its coinbase height', {
      height,
      coinbaseHeight: baseInput.blockIndex,
    });
  }
  return baseInput.blockIndex;
}

/**
 * The usable extra-nonce area must lie inside the data of a 0x02 (extra nonce) field of the coinbase
 * extra, else `INVALID_VALUE`.
 */
function checkExtraNonceArea(
  coinbase: Transaction,
  coinbaseEnd: number,
  offset: number,
  capacity: number,
): void {
  const signatureBytes = coinbase.inputs.reduce((n, input) => n + 64 * signatureCountOf(input), 0);
  const extraStart = coinbaseEnd - signatureBytes - coinbase.extra.length;
  const fields = parseTxExtra(coinbase.extra);
  const inside = fields.some((field) => {
    if (field.kind !== 'nonce') return false;
    const dataStart = extraStart + field.offset + 2;
    const dataEnd = dataStart + field.nonce.length;
    return Number.isInteger(offset) && offset >= dataStart && offset + capacity <= dataEnd;
  });
  if (!inside) {
    throw new CodecError('INVALID_VALUE', 'reserved area is not inside the coinbase extra nonce', {
      reservedOffset: offset,
      capacity,
    });
  }
}

/**
 * A copy in Node's small-buffer pool: a new Uint8Array over 64 bytes gets its own backing store,
 * which costs far more to allocate and collect, thousands of times per new template.
 */
function pooledCopy(bytes: Uint8Array): Uint8Array {
  const copy = Buffer.allocUnsafe(bytes.length);
  copy.set(bytes);
  return copy;
}
