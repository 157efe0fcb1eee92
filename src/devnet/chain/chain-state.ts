import { type Block, serializeBlock } from '../../fuego/block.js';
import { auxHeaderHash, blockId } from '../../fuego/block-hash.js';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../../fuego/coinbase-maturity.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import { parseTransaction, serializeTransaction } from '../../fuego/transaction.js';
import { encodeMergeMiningTag } from '../../fuego/tx-extra.js';
import type { PowHasher } from '../../pow/types.js';
import { type BlockRejectionCode, type ValidationContext, validateBlock } from './block-validator.js';
import { addKeyImages, admitTransaction, type ChainTransaction } from './chain-transaction.js';
import { type AddressKeysHex, deriveTxPublicKey, OutputOwners } from './output-keys.js';
import { baseRewardAtomic } from './reward-schedule.js';
import { type BuiltTemplate, buildTemplate } from './template-builder.js';

/**
 * Fuego's testnet genesis (spec §9): v1, timestamp 0, zero prev id, nonce 71, and the coinbase below
 * (one output of 305176116). Its id, 3c1fde6f…, is what the captured testnet daemon reports at height 0.
 */
const GENESIS_COINBASE_HEX =
  '013c01ff0001b4bcc29101029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd0880712101bd4e0bf284c04d004fd016a21405046e8267ef81328cabf3017c4c24b273b25a';
const GENESIS_NONCE = 71;
/** Median window of block timestamps, as in the daemon. */
const TIMESTAMP_CHECK_WINDOW = 11;

export interface ChainBlock {
  readonly id: string;
  readonly height: number;
  readonly block: Block;
  readonly blob: Uint8Array;
  readonly difficulty: bigint;
  readonly baseRewardAtomic: bigint;
  /** Sum of the coinbase outputs (base reward plus fees). */
  readonly rewardAtomic: bigint;
  readonly feesAtomic: bigint;
  /** Coins generated up to and including this block (base rewards only). */
  readonly alreadyGeneratedAtomic: bigint;
  readonly coinbaseHash: string;
  readonly transactions: readonly ChainTransaction[];
  orphaned: boolean;
}

export type ChainEvent =
  | { readonly kind: 'block'; readonly block: ChainBlock }
  | { readonly kind: 'reorg'; readonly orphaned: readonly ChainBlock[] }
  | { readonly kind: 'mempool' };

export type SubmitResult =
  | { readonly accepted: true; readonly block: ChainBlock }
  | { readonly accepted: false; readonly code: BlockRejectionCode; readonly detail: string };

export interface ChainStateOptions {
  readonly difficulty: bigint;
  /** Milliseconds since the epoch; injected so tests control block timestamps. */
  readonly now: () => number;
  readonly hasher: PowHasher;
  /** Base reward of block 1 (0 = the normal schedule). */
  readonly premineAtomic?: bigint;
  /** Blocks before a coinbase unlocks (default: Fuego's 60). */
  readonly coinbaseMaturityBlocks?: number;
}

export interface IssuedTemplate extends BuiltTemplate {
  readonly height: number;
  readonly difficulty: bigint;
}

/**
 * The devnet's blockchain: main chain, orphaned (alternative) blocks, mempool, and the record of
 * which address each output pays. Blocks enter through `submitBlock` (validated, PoW checked) or
 * `mineBlock` (the devnet's own miner, no PoW); `orphanLast` simulates a reorg and
 * `restoreLastOrphaned` a reorg back to the branch it took off.
 */
export class ChainState {
  readonly outputOwners = new OutputOwners();
  readonly #main: ChainBlock[] = [];
  readonly #byId = new Map<string, ChainBlock>();
  readonly #alternative: ChainBlock[] = [];
  /** The branch the last reorg took off the main chain (what `restoreLastOrphaned` puts back). */
  #lastOrphaned: ChainBlock[] = [];
  readonly #mempool = new Map<string, ChainTransaction>();
  readonly #listeners = new Set<(event: ChainEvent) => void>();
  readonly #now: () => number;
  readonly #hasher: PowHasher;
  readonly #genesisId: Uint8Array;
  readonly #premineAtomic: bigint;
  readonly #coinbaseMaturityBlocks: number;
  #difficulty: bigint;
  #txKeySerial = 0n;

  constructor(options: ChainStateOptions) {
    this.#difficulty = options.difficulty;
    this.#now = options.now;
    this.#hasher = options.hasher;
    this.#premineAtomic = options.premineAtomic ?? 0n;
    this.#coinbaseMaturityBlocks = options.coinbaseMaturityBlocks ?? FUEGO_COINBASE_MATURITY_BLOCKS;
    const coinbase = parseTransaction(hexToBytes(GENESIS_COINBASE_HEX));
    const genesis: Block = {
      majorVersion: 1,
      minorVersion: 0,
      timestamp: 0n,
      prevId: new Uint8Array(32),
      nonce: GENESIS_NONCE,
      baseTransaction: coinbase,
      transactionHashes: [],
    };
    this.#genesisId = blockId(genesis);
    this.#append(genesis, serializeBlock(genesis), 0n, []);
  }

  // ---- queries -------------------------------------------------------------------------------

  /** Number of main-chain blocks (the daemon's "height"; index of the next block). */
  get height(): number {
    return this.#main.length;
  }

  get tip(): ChainBlock {
    return this.#main[this.#main.length - 1]!;
  }

  get genesisId(): Uint8Array {
    return this.#genesisId;
  }

  get difficulty(): bigint {
    return this.#difficulty;
  }

  /** A coinbase at height h unlocks at h + this; the daemon also offers no output younger than it as a decoy. */
  get coinbaseMaturityBlocks(): number {
    return this.#coinbaseMaturityBlocks;
  }

  setDifficulty(difficulty: bigint): void {
    if (difficulty < 1n) throw new RangeError('difficulty must be at least 1');
    this.#difficulty = difficulty;
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.#main[height];
  }

  blockById(idHex: string): ChainBlock | undefined {
    return this.#byId.get(idHex.toLowerCase());
  }

  mainChain(): readonly ChainBlock[] {
    return this.#main;
  }

  alternativeBlocks(): readonly ChainBlock[] {
    return this.#alternative;
  }

  mempool(): ChainTransaction[] {
    return [...this.#mempool.values()];
  }

  /** A confirmed (main chain) or mempool transaction by hash, with its block if confirmed. */
  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined {
    const hash = hashHex.toLowerCase();
    const pooled = this.#mempool.get(hash);
    if (pooled) return { tx: pooled };
    for (const block of this.#main) {
      for (const tx of block.transactions) if (tx.hash === hash) return { tx, block };
    }
    return undefined;
  }

  /** Number of non-coinbase transactions on the main chain. */
  confirmedTransactionCount(): number {
    let count = 0;
    for (const block of this.#main) count += block.transactions.length;
    return count;
  }

  onChange(listener: (event: ChainEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- mining --------------------------------------------------------------------------------

  /** A fresh v9 template paying `address` (with a new tx key each call, like the real daemon). */
  createTemplate(address: string, keys: AddressKeysHex, reserveSize: number): IssuedTemplate {
    const height = this.height;
    const pooled = this.mempool();
    const fees = pooled.reduce((sum, tx) => sum + tx.feeAtomic, 0n);
    this.#txKeySerial += 1n;
    const template = buildTemplate({
      height,
      prevId: hexToBytes(this.tip.id),
      timestamp: this.#nextTimestamp(),
      rewardAtomic: this.#baseReward(height) + fees,
      transactionHashes: pooled.map((tx) => hexToBytes(tx.hash)),
      address: keys,
      txPublicKey: deriveTxPublicKey(this.#txKeySerial, hexToBytes(this.tip.id)),
      reserveSize,
      coinbaseMaturityBlocks: this.#coinbaseMaturityBlocks,
    });
    for (const output of template.outputKeys) this.outputOwners.record(output.keyHex, address);
    return { ...template, height, difficulty: this.#difficulty };
  }

  /** Validates a solved block (PoW included) and appends it to the main chain if it is good. */
  submitBlock(blob: Uint8Array): SubmitResult {
    return this.#accept(blob, { hasher: this.#hasher });
  }

  /** Whether submitBlock would accept the block (PoW included), without appending it. */
  checkBlock(blob: Uint8Array): boolean {
    return validateBlock(blob, this.validationContext(), { hasher: this.#hasher }).accepted;
  }

  /** Re-appends a block saved earlier (validated like any block, PoW not re-checked). */
  restoreBlock(blob: Uint8Array): SubmitResult {
    return this.#accept(blob, { checkPow: false });
  }

  /**
   * The devnet's own miner: builds a template for `address`, fills the merge-mining tag as fuegod's
   * built-in miner does, and appends the block without hashing (no PoW at any difficulty).
   */
  mineBlock(address: string, keys: AddressKeysHex): ChainBlock {
    const template = this.createTemplate(address, keys, 8);
    const parent = template.block.parentBlock!;
    const block: Block = {
      ...template.block,
      parentBlock: {
        ...parent,
        baseTransaction: {
          ...parent.baseTransaction,
          extra: encodeMergeMiningTag(0, auxHeaderHash(template.block)),
        },
      },
    };
    const result = this.#accept(serializeBlock(block), { checkPow: false });
    if (!result.accepted)
      throw new Error(`devnet miner built an invalid block: ${result.code} ${result.detail}`);
    return result.block;
  }

  /**
   * Orphans the last `count` main-chain blocks (never the genesis): they become alternative blocks
   * with `orphan_status` true, and their transactions go back to the mempool.
   */
  orphanLast(count: number): ChainBlock[] {
    const removable = Math.max(0, Math.min(count, this.#main.length - 1));
    const orphaned = this.#main.splice(this.#main.length - removable, removable);
    for (const block of orphaned) {
      block.orphaned = true;
      this.#alternative.push(block);
      for (const tx of block.transactions) this.#mempool.set(tx.hash, tx);
    }
    if (orphaned.length > 0) {
      this.#lastOrphaned = orphaned;
      this.#emit({ kind: 'reorg', orphaned });
    }
    return orphaned;
  }

  /**
   * Undoes the last reorg: the branch `orphanLast` took off most recently goes back on the main
   * chain at its own heights, and the blocks that replaced it become alternative blocks (they are
   * what a second `restoreLastOrphaned` puts back). The restored blocks' transactions leave the
   * mempool, and so does any pooled transaction spending what they spend. The restored branch is
   * not longer than the one it replaces: mine on top to make it the longest (as the control does).
   */
  restoreLastOrphaned(): { restored: ChainBlock[]; orphaned: ChainBlock[] } {
    const branch = this.#lastOrphaned;
    const first = branch[0];
    if (first === undefined) throw new RangeError('no orphaned branch to restore');
    const parent = this.#main[first.height - 1];
    if (parent === undefined || parent.id !== bytesToHex(first.block.prevId)) {
      throw new RangeError('the orphaned branch no longer forks from the main chain');
    }
    const orphaned = this.orphanLast(this.#main.length - first.height);
    const restoring = new Set(branch);
    this.#alternative.splice(
      0,
      this.#alternative.length,
      ...this.#alternative.filter((b) => !restoring.has(b)),
    );
    for (const block of branch) {
      block.orphaned = false;
      this.#main.push(block);
      for (const tx of block.transactions) this.#mempool.delete(tx.hash);
    }
    const spent = new Set<string>();
    for (const block of this.#main) for (const tx of block.transactions) addKeyImages(spent, tx);
    for (const tx of this.mempool()) {
      if (tx.tx.inputs.some((input) => input.kind === 'key' && spent.has(bytesToHex(input.keyImage)))) {
        this.#mempool.delete(tx.hash);
      }
    }
    this.#lastOrphaned = orphaned;
    for (const block of branch) this.#emit({ kind: 'block', block });
    return { restored: branch, orphaned };
  }

  // ---- transactions --------------------------------------------------------------------------

  /** Adds a serialized transaction to the mempool; returns a reason when it is refused. */
  addTransaction(bytes: Uint8Array): { ok: true; tx: ChainTransaction } | { ok: false; reason: string } {
    const admitted = admitTransaction(bytes, {
      isKnown: (hash) => this.findTransaction(hash) !== undefined,
      spentKeyImages: () => this.#spentKeyImages(),
    });
    if (!admitted.ok) return admitted;
    this.#mempool.set(admitted.tx.hash, admitted.tx);
    this.#emit({ kind: 'mempool' });
    return admitted;
  }

  /**
   * Drops a transaction from the mempool without mining it, as the daemon's mempool expiry does
   * (CRYPTONOTE_MEMPOOL_TX_LIVETIME); false when it is not in the mempool.
   */
  dropFromMempool(hashHex: string): boolean {
    const dropped = this.#mempool.delete(hashHex.toLowerCase());
    if (dropped) this.#emit({ kind: 'mempool' });
    return dropped;
  }

  // ---- internals -----------------------------------------------------------------------------

  /** What a block extending the current tip is checked against (exposed for tests and tools). */
  validationContext(): ValidationContext {
    const height = this.height;
    return {
      height,
      tipId: hexToBytes(this.tip.id),
      genesisId: this.#genesisId,
      difficulty: this.#difficulty,
      medianTimestamp: this.#medianTimestamp(),
      nowSeconds: BigInt(Math.floor(this.#now() / 1000)),
      baseRewardAtomic: this.#baseReward(height),
      coinbaseMaturityBlocks: this.#coinbaseMaturityBlocks,
      isKnownBlock: (idHex) => this.#byId.has(idHex),
      mempoolFee: (hashHex) => this.#mempool.get(hashHex)?.feeAtomic,
    };
  }

  #accept(blob: Uint8Array, pow: { hasher: PowHasher } | { checkPow: false }): SubmitResult {
    const verdict = validateBlock(blob, this.validationContext(), pow);
    if (!verdict.accepted) return verdict;
    const included = verdict.block.transactionHashes.map((hash) => this.#mempool.get(bytesToHex(hash))!);
    for (const tx of included) this.#mempool.delete(tx.hash);
    const block = this.#append(verdict.block, blob, verdict.feesAtomic, included);
    return { accepted: true, block };
  }

  #append(block: Block, blob: Uint8Array, feesAtomic: bigint, transactions: ChainTransaction[]): ChainBlock {
    const height = this.#main.length;
    const previousGenerated = height === 0 ? 0n : this.tip.alreadyGeneratedAtomic;
    const rewardAtomic = block.baseTransaction.outputs.reduce((sum, output) => sum + output.amount, 0n);
    const base = rewardAtomic - feesAtomic;
    const id = bytesToHex(blockId(block));
    const entry: ChainBlock = {
      id,
      height,
      block,
      blob,
      difficulty: height === 0 ? 1n : this.#difficulty,
      baseRewardAtomic: base,
      rewardAtomic,
      feesAtomic,
      alreadyGeneratedAtomic: previousGenerated + base,
      coinbaseHash: bytesToHex(cnFastHash(serializeTransaction(block.baseTransaction))),
      transactions,
      orphaned: false,
    };
    this.#main.push(entry);
    this.#byId.set(id, entry);
    if (height > 0) this.#emit({ kind: 'block', block: entry });
    return entry;
  }

  #baseReward(height: number): bigint {
    return baseRewardAtomic(this.tip.alreadyGeneratedAtomic, height, this.#premineAtomic);
  }

  #medianTimestamp(): bigint {
    const recent = this.#main.slice(-TIMESTAMP_CHECK_WINDOW).map((b) => b.block.timestamp);
    recent.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return recent[Math.floor((recent.length - 1) / 2)] ?? 0n;
  }

  #nextTimestamp(): bigint {
    const now = BigInt(Math.floor(this.#now() / 1000));
    const median = this.#medianTimestamp();
    return now > median ? now : median;
  }

  #spentKeyImages(): Set<string> {
    const spent = new Set<string>();
    for (const block of this.#main) for (const tx of block.transactions) addKeyImages(spent, tx);
    for (const tx of this.#mempool.values()) addKeyImages(spent, tx);
    return spent;
  }

  #emit(event: ChainEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
