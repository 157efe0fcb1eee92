import { type Block, parseBlock, serializeBlock } from '../../fuego/block.js';
import { auxHeaderHash, blockId } from '../../fuego/block-hash.js';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../../fuego/coinbase-maturity.js';
import { CodecError } from '../../fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import { parseTransaction, serializeTransaction } from '../../fuego/transaction.js';
import { encodeMergeMiningTag } from '../../fuego/tx-extra.js';
import type { PowHasher } from '../../pow/types.js';
import {
  type BlockRejectionCode,
  type BlockVerdict,
  type ValidationContext,
  validateBlock,
} from './block-validator.js';
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
  /** Sum of the difficulties of this block and its ancestors: the heavier chain is the main one. */
  readonly cumulativeDifficulty: bigint;
  readonly coinbaseHash: string;
  readonly transactions: readonly ChainTransaction[];
  orphaned: boolean;
}

export type ChainEvent =
  | { readonly kind: 'block'; readonly block: ChainBlock }
  | { readonly kind: 'reorg'; readonly orphaned: readonly ChainBlock[] }
  | { readonly kind: 'mempool' };

/**
 * Where a valid block went, as fuegod's Blockchain::addNewBlock places it: on the tip of the main
 * chain; kept as an alternative block (its parent is a known block other than the tip, and its
 * chain is not heavier than the main one; submitblock answers -7); or onto the main chain by the
 * reorganization it caused (its chain became heavier; submitblock answers OK).
 */
export type BlockPlacement = 'main-chain' | 'alternative' | 'reorganized';

export type SubmitResult =
  | {
      readonly accepted: true;
      readonly block: ChainBlock;
      readonly placement: BlockPlacement;
      /** The main-chain blocks a reorganization took off (empty unless `reorganized`). */
      readonly orphaned: readonly ChainBlock[];
    }
  | { readonly accepted: false; readonly code: BlockRejectionCode; readonly detail: string };

type PowCheck = { readonly hasher: PowHasher } | { readonly checkPow: false };

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
 * `mineBlock` / `mineBlockOn` (the devnet's own miner, no PoW). A valid block whose parent is a
 * known block other than the tip is kept as an alternative block, and the chain switches to its
 * branch once that branch has more cumulative difficulty, as fuegod does. `orphanLast` forces a
 * reorg and `restoreLastOrphaned` a reorg back to the branch it took off.
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

  /**
   * A fresh v9 template paying `address` (with a new tx key each call, like the real daemon), on
   * the tip with the mempool's transactions, or on `parentId` (any known block: what a peer mining
   * on another branch would build) with the transactions of the main-chain blocks its branch would
   * replace that the branch lacks (without them the chain could never switch to it).
   */
  createTemplate(
    address: string,
    keys: AddressKeysHex,
    reserveSize: number,
    parentId: string = this.tip.id,
  ): IssuedTemplate {
    const parent = this.blockById(parentId);
    if (parent === undefined) throw new RangeError(`no block ${parentId}`);
    const height = parent.height + 1;
    const included = parent === this.tip ? this.mempool() : this.#transactionsBranchLacks(parent);
    const fees = included.reduce((sum, tx) => sum + tx.feeAtomic, 0n);
    this.#txKeySerial += 1n;
    const template = buildTemplate({
      height,
      prevId: hexToBytes(parent.id),
      timestamp: this.#nextTimestamp(parent),
      rewardAtomic: this.#baseReward(parent) + fees,
      transactionHashes: included.map((tx) => hexToBytes(tx.hash)),
      address: keys,
      txPublicKey: deriveTxPublicKey(this.#txKeySerial, hexToBytes(parent.id)),
      reserveSize,
      coinbaseMaturityBlocks: this.#coinbaseMaturityBlocks,
    });
    for (const output of template.outputKeys) this.outputOwners.record(output.keyHex, address);
    return { ...template, height, difficulty: this.#difficulty };
  }

  /**
   * Validates a solved block (PoW included) and places it as fuegod does (see BlockPlacement): on
   * the tip; kept as an alternative block when its parent is another known block; and when that
   * makes its branch heavier than the main chain, switches to the branch. A block whose parent is
   * unknown is refused (STALE), and so is a switch one of whose blocks does not connect (that
   * block and the ones after it are dropped).
   */
  submitBlock(blob: Uint8Array): SubmitResult {
    return this.#receive(blob, { hasher: this.#hasher });
  }

  /** Whether submitBlock would take the block (on the tip or as an alternative), PoW included, without adding it. */
  checkBlock(blob: Uint8Array): boolean {
    return validateBlock(blob, this.#contextFor(blob), { hasher: this.#hasher }).accepted;
  }

  /** Re-appends a block saved earlier on the tip (validated like any block, PoW not re-checked). */
  restoreBlock(blob: Uint8Array): SubmitResult {
    return this.#accept(blob, { checkPow: false });
  }

  /**
   * The devnet's own miner: builds a template for `address`, fills the merge-mining tag as fuegod's
   * built-in miner does, and appends the block without hashing (no PoW at any difficulty).
   */
  mineBlock(address: string, keys: AddressKeysHex): ChainBlock {
    return this.mineBlockOn(this.tip.id, address, keys).block;
  }

  /**
   * The devnet's own miner on any known block (the rest of the network building on a branch): the
   * block is placed as a submitted one would be (see submitBlock), without hashing.
   */
  mineBlockOn(
    parentId: string,
    address: string,
    keys: AddressKeysHex,
  ): Extract<SubmitResult, { accepted: true }> {
    const template = this.createTemplate(address, keys, 8, parentId);
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
    const result = this.#receive(serializeBlock(block), { checkPow: false });
    if (!result.accepted)
      throw new Error(`devnet miner built an invalid block: ${result.code} ${result.detail}`);
    return result;
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
    return { restored: branch, orphaned: this.#connectBranch(branch) };
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
    return this.#contextOn(this.tip, (hashHex) => this.#mempool.get(hashHex)?.feeAtomic);
  }

  /**
   * What a block extending `parent` is checked against, its transactions' fees read by `feeOf`.
   * `connecting` is a kept block being moved onto the main chain: it is not a duplicate of itself.
   */
  #contextOn(
    parent: ChainBlock,
    feeOf: (hashHex: string) => bigint | undefined,
    connecting?: ChainBlock,
  ): ValidationContext {
    return {
      height: parent.height + 1,
      tipId: hexToBytes(parent.id),
      genesisId: this.#genesisId,
      difficulty: this.#difficulty,
      medianTimestamp: this.#medianTimestamp(parent),
      nowSeconds: BigInt(Math.floor(this.#now() / 1000)),
      baseRewardAtomic: this.#baseReward(parent),
      coinbaseMaturityBlocks: this.#coinbaseMaturityBlocks,
      isKnownBlock: (idHex) => idHex !== connecting?.id && this.#byId.has(idHex),
      mempoolFee: feeOf,
    };
  }

  /**
   * The context a submitted block is checked in: on its parent when that is a known block other
   * than the tip (an alternative block, whose transactions may be anywhere the devnet knows them:
   * fuegod checks them only when it switches to the branch), else on the tip.
   */
  #contextFor(blob: Uint8Array): ValidationContext {
    const parent = this.#knownParentOf(blob);
    if (parent === undefined || parent === this.tip) return this.validationContext();
    return this.#contextOn(parent, (hashHex) => this.#knownTransaction(hashHex)?.feeAtomic);
  }

  /** The block `blob` builds on, when it parses and the devnet has that block. */
  #knownParentOf(blob: Uint8Array): ChainBlock | undefined {
    try {
      return this.#byId.get(bytesToHex(parseBlock(blob).prevId));
    } catch (error) {
      if (error instanceof CodecError) return undefined;
      throw error;
    }
  }

  /** On the tip, as an alternative block, or onto the main chain by the switch it causes (see submitBlock). */
  #receive(blob: Uint8Array, pow: PowCheck): SubmitResult {
    const verdict = validateBlock(blob, this.#contextFor(blob), pow);
    if (!verdict.accepted) return verdict;
    const parent = this.#byId.get(bytesToHex(verdict.block.prevId))!;
    if (parent === this.tip) return this.#acceptOnTip(verdict, blob);
    const transactions = verdict.block.transactionHashes.map(
      (hash) => this.#knownTransaction(bytesToHex(hash))!,
    );
    const block = this.#entry(verdict.block, blob, verdict.feesAtomic, transactions, parent);
    block.orphaned = true;
    this.#alternative.push(block);
    this.#byId.set(block.id, block);
    if (block.cumulativeDifficulty <= this.tip.cumulativeDifficulty) return kept(block);
    return this.#switchTo(block);
  }

  #accept(blob: Uint8Array, pow: PowCheck): SubmitResult {
    const verdict = validateBlock(blob, this.validationContext(), pow);
    return verdict.accepted ? this.#acceptOnTip(verdict, blob) : verdict;
  }

  #acceptOnTip(verdict: Extract<BlockVerdict, { accepted: true }>, blob: Uint8Array): SubmitResult {
    const included = verdict.block.transactionHashes.map((hash) => this.#mempool.get(bytesToHex(hash))!);
    for (const tx of included) this.#mempool.delete(tx.hash);
    const block = this.#append(verdict.block, blob, verdict.feesAtomic, included);
    return { accepted: true, block, placement: 'main-chain', orphaned: [] };
  }

  /**
   * fuegod's switch_to_alternative_blockchain, for the branch ending at `head` (heavier than the
   * main chain): refused, the blocks staying alternative, when the main-chain blocks it would
   * replace hold a transaction the branch lacks; refused, dropping the first block that does not
   * connect and the ones after it, when a block is invalid on the main chain (its transactions must
   * be in the mempool once the replaced blocks' return there); else made.
   */
  #switchTo(head: ChainBlock): SubmitResult {
    const branch = this.#branchOf(head);
    const forkHeight = branch[0]!.height;
    const replaced = this.#main.slice(forkHeight);
    const carried = new Set(branch.flatMap((block) => block.transactions.map((tx) => tx.hash)));
    if (replaced.some((block) => block.transactions.some((tx) => !carried.has(tx.hash)))) return kept(head);
    const pool = new Map(this.#mempool);
    for (const block of replaced) for (const tx of block.transactions) pool.set(tx.hash, tx);
    for (const [index, block] of branch.entries()) {
      const parent = index === 0 ? this.#main[forkHeight - 1]! : branch[index - 1]!;
      const context = this.#contextOn(parent, (hashHex) => pool.get(hashHex)?.feeAtomic, block);
      const verdict = validateBlock(block.blob, context, { checkPow: false });
      if (!verdict.accepted) {
        this.#dropAlternative(branch.slice(index));
        return { ...verdict, detail: `switching to block ${block.id}'s branch: ${verdict.detail}` };
      }
      for (const tx of block.transactions) pool.delete(tx.hash);
    }
    const orphaned = this.#connectBranch(branch);
    return { accepted: true, block: head, placement: 'reorganized', orphaned };
  }

  /**
   * Puts `branch` (alternative blocks, oldest first, forking from the main chain) on the main chain
   * at its own heights: the blocks it replaces become alternative blocks (what restoreLastOrphaned
   * puts back) and their transactions return to the mempool; the branch's leave it, and so does any
   * pooled transaction spending what they spend. Returns the replaced blocks.
   */
  #connectBranch(branch: readonly ChainBlock[]): ChainBlock[] {
    const orphaned = this.orphanLast(this.#main.length - branch[0]!.height);
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
    return orphaned;
  }

  /** The alternative blocks from the main chain up to `head`, oldest first. */
  #branchOf(head: ChainBlock): ChainBlock[] {
    const branch: ChainBlock[] = [];
    for (let block = head; !this.#isOnMainChain(block); block = this.#parentOf(block)!) branch.unshift(block);
    return branch;
  }

  /**
   * The main-chain transactions above the fork of `parent`'s branch that the branch (up to
   * `parent`) does not carry: a block on `parent` must carry them for the chain to switch to it.
   */
  #transactionsBranchLacks(parent: ChainBlock): ChainTransaction[] {
    const branch = this.#isOnMainChain(parent) ? [] : this.#branchOf(parent);
    const forkHeight = branch[0]?.height ?? parent.height + 1;
    const carried = new Set(branch.flatMap((block) => block.transactions.map((tx) => tx.hash)));
    return this.#main
      .slice(forkHeight)
      .flatMap((block) => block.transactions)
      .filter((tx) => !carried.has(tx.hash));
  }

  #dropAlternative(blocks: readonly ChainBlock[]): void {
    const dropping = new Set(blocks);
    for (const block of blocks) this.#byId.delete(block.id);
    this.#alternative.splice(
      0,
      this.#alternative.length,
      ...this.#alternative.filter((b) => !dropping.has(b)),
    );
  }

  #isOnMainChain(block: ChainBlock): boolean {
    return this.#main[block.height] === block;
  }

  #parentOf(block: ChainBlock): ChainBlock | undefined {
    return block.height === 0 ? undefined : this.#byId.get(bytesToHex(block.block.prevId));
  }

  /** A transaction the devnet knows: pooled, on the main chain, or in an alternative block. */
  #knownTransaction(hashHex: string): ChainTransaction | undefined {
    const found = this.findTransaction(hashHex)?.tx;
    if (found) return found;
    for (const block of this.#alternative)
      for (const tx of block.transactions) if (tx.hash === hashHex) return tx;
    return undefined;
  }

  #append(block: Block, blob: Uint8Array, feesAtomic: bigint, transactions: ChainTransaction[]): ChainBlock {
    const entry = this.#entry(
      block,
      blob,
      feesAtomic,
      transactions,
      this.#main.length === 0 ? undefined : this.tip,
    );
    this.#main.push(entry);
    this.#byId.set(entry.id, entry);
    if (entry.height > 0) this.#emit({ kind: 'block', block: entry });
    return entry;
  }

  /** The record of a valid block on `parent` (none for the genesis), difficulty as set now. */
  #entry(
    block: Block,
    blob: Uint8Array,
    feesAtomic: bigint,
    transactions: ChainTransaction[],
    parent: ChainBlock | undefined,
  ): ChainBlock {
    const height = parent === undefined ? 0 : parent.height + 1;
    const rewardAtomic = block.baseTransaction.outputs.reduce((sum, output) => sum + output.amount, 0n);
    const base = rewardAtomic - feesAtomic;
    const difficulty = parent === undefined ? 1n : this.#difficulty;
    return {
      id: bytesToHex(blockId(block)),
      height,
      block,
      blob,
      difficulty,
      baseRewardAtomic: base,
      rewardAtomic,
      feesAtomic,
      alreadyGeneratedAtomic: (parent?.alreadyGeneratedAtomic ?? 0n) + base,
      cumulativeDifficulty: (parent?.cumulativeDifficulty ?? 0n) + difficulty,
      coinbaseHash: bytesToHex(cnFastHash(serializeTransaction(block.baseTransaction))),
      transactions,
      orphaned: false,
    };
  }

  /** Base reward of a block on `parent`. */
  #baseReward(parent: ChainBlock): bigint {
    return baseRewardAtomic(parent.alreadyGeneratedAtomic, parent.height + 1, this.#premineAtomic);
  }

  /** Median timestamp of `parent` and the blocks before it on its branch (the daemon's window). */
  #medianTimestamp(parent: ChainBlock): bigint {
    const recent: bigint[] = [];
    for (
      let block: ChainBlock | undefined = parent;
      block !== undefined && recent.length < TIMESTAMP_CHECK_WINDOW;
      block = this.#parentOf(block)
    ) {
      recent.push(block.block.timestamp);
    }
    recent.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return recent[Math.floor((recent.length - 1) / 2)] ?? 0n;
  }

  #nextTimestamp(parent: ChainBlock): bigint {
    const now = BigInt(Math.floor(this.#now() / 1000));
    const median = this.#medianTimestamp(parent);
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

/** A valid block kept off the main chain (submitblock answers -7). */
function kept(block: ChainBlock): SubmitResult {
  return { accepted: true, block, placement: 'alternative', orphaned: [] };
}
