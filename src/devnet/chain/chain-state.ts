import { parseBlock, serializeBlock } from '../../fuego/block.js';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../../fuego/coinbase-maturity.js';
import { CodecError } from '../../fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import type { PowHasher } from '../../pow/types.js';
import { BlockContext } from './block-context.js';
import { BlockTree } from './block-tree.js';
import {
  type BlockRejectionCode,
  type BlockVerdict,
  type ValidationContext,
  validateBlock,
} from './block-validator.js';
import { checkBranchSwitch } from './branch-switch.js';
import { type ChainBlock, chainBlockOf, type ValidBlock } from './chain-block.js';
import { admitTransaction, type ChainTransaction } from './chain-transaction.js';
import { Mempool } from './mempool.js';
import { fetchBranch, NetworkBlocks } from './network-blocks.js';
import { type AddressKeysHex, deriveTxPublicKey, OutputOwners } from './output-keys.js';
import { type BuiltTemplate, buildTemplate, withMergeMiningTag } from './template-builder.js';
import { testnetGenesisBlock } from './testnet-genesis.js';

export type { ChainBlock } from './chain-block.js';

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
 * The devnet's blockchain: main chain and alternative blocks (a BlockTree), mempool, and the
 * record of which address each output pays. Blocks enter through `submitBlock` (validated, PoW
 * checked) or `mineBlock` / `mineBlockOn` (the devnet's own miner, no PoW). A valid block whose
 * parent is a known block other than the tip is kept as an alternative block, and the chain
 * switches to its branch once that branch has more cumulative difficulty, as fuegod does
 * (checkBranchSwitch). `orphanLast` forces a reorg and `restoreLastOrphaned` a reorg back to the
 * branch it took off.
 */
export class ChainState {
  readonly outputOwners = new OutputOwners();
  /** Blocks the rest of the network has that the daemon forgot in a restart (see NetworkBlocks). */
  readonly network = new NetworkBlocks();
  readonly #tree: BlockTree;
  /** Ids of the branch the last reorg took off the main chain (what `restoreLastOrphaned` puts back). */
  #lastOrphaned: string[] = [];
  readonly #mempool = new Mempool();
  readonly #listeners = new Set<(event: ChainEvent) => void>();
  readonly #hasher: PowHasher;
  readonly #genesisId: Uint8Array;
  readonly #context: BlockContext;
  readonly #coinbaseMaturityBlocks: number;
  #difficulty: bigint;
  #txKeySerial = 0n;

  constructor(options: ChainStateOptions) {
    this.#difficulty = options.difficulty;
    this.#hasher = options.hasher;
    this.#coinbaseMaturityBlocks = options.coinbaseMaturityBlocks ?? FUEGO_COINBASE_MATURITY_BLOCKS;
    const genesis = testnetGenesisBlock();
    const valid = { block: genesis, blob: serializeBlock(genesis), feesAtomic: 0n, transactions: [] };
    this.#tree = new BlockTree(chainBlockOf(valid, undefined, this.#difficulty));
    this.#genesisId = hexToBytes(this.#tree.tip.id);
    this.#context = new BlockContext(this.#tree, {
      genesisId: this.#genesisId,
      now: options.now,
      difficulty: () => this.#difficulty,
      premineAtomic: options.premineAtomic ?? 0n,
      coinbaseMaturityBlocks: this.#coinbaseMaturityBlocks,
    });
  }

  // ---- queries -------------------------------------------------------------------------------

  /** Number of main-chain blocks (the daemon's "height"; index of the next block). */
  get height(): number {
    return this.#tree.height;
  }

  get tip(): ChainBlock {
    return this.#tree.tip;
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
    return this.#tree.blockAt(height);
  }

  blockById(idHex: string): ChainBlock | undefined {
    return this.#tree.blockById(idHex.toLowerCase());
  }

  mainChain(): readonly ChainBlock[] {
    return this.#tree.mainChain();
  }

  alternativeBlocks(): readonly ChainBlock[] {
    return this.#tree.alternativeBlocks();
  }

  mempool(): ChainTransaction[] {
    return this.#mempool.transactions();
  }

  /** A confirmed (main chain) or mempool transaction by hash, with its block if confirmed. */
  findTransaction(hashHex: string): { tx: ChainTransaction; block?: ChainBlock } | undefined {
    const hash = hashHex.toLowerCase();
    const pooled = this.#mempool.get(hash);
    if (pooled) return { tx: pooled };
    return this.#tree.findOnMainChain(hash);
  }

  /** Number of non-coinbase transactions on the main chain. */
  confirmedTransactionCount(): number {
    let count = 0;
    for (const block of this.#tree.mainChain()) count += block.transactions.length;
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
    const included = parent === this.tip ? this.mempool() : this.#tree.transactionsBranchLacks(parent);
    const fees = included.reduce((sum, tx) => sum + tx.feeAtomic, 0n);
    this.#txKeySerial += 1n;
    const template = buildTemplate({
      height,
      prevId: hexToBytes(parent.id),
      timestamp: this.#context.timestampOn(parent),
      rewardAtomic: this.#context.baseRewardOn(parent) + fees,
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
    this.#fetchFromNetwork(parentId.toLowerCase());
    const template = this.createTemplate(address, keys, 8, parentId);
    const result = this.#receive(serializeBlock(withMergeMiningTag(template.block)), { checkPow: false });
    if (!result.accepted)
      throw new Error(`devnet miner built an invalid block: ${result.code} ${result.detail}`);
    return result;
  }

  /**
   * Orphans the last `count` main-chain blocks (never the genesis): they become alternative blocks
   * with `orphan_status` true, and their transactions go back to the mempool.
   */
  orphanLast(count: number): ChainBlock[] {
    const orphaned = this.#tree.detachTail(count);
    this.#mempool.returnFrom(orphaned);
    if (orphaned.length > 0) {
      this.#lastOrphaned = orphaned.map((block) => block.id);
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
    const ids = this.#lastOrphaned;
    if (ids.length === 0) throw new RangeError('no orphaned branch to restore');
    this.#fetchFromNetwork(ids[ids.length - 1]!);
    const branch = ids.flatMap((id) => this.#tree.blockById(id) ?? []);
    const parent = branch.length === ids.length ? this.#tree.blockAt(branch[0]!.height - 1) : undefined;
    if (parent === undefined || parent.id !== bytesToHex(branch[0]!.block.prevId)) {
      throw new RangeError('the orphaned branch no longer forks from the main chain');
    }
    return { restored: branch, orphaned: this.#connectBranch(branch) };
  }

  /** Ids of the branch `restoreLastOrphaned` puts back, oldest first (a snapshot keeps them). */
  get lastOrphanedIds(): readonly string[] {
    return this.#lastOrphaned;
  }

  set lastOrphanedIds(ids: readonly string[]) {
    this.#lastOrphaned = [...ids];
  }

  // ---- transactions --------------------------------------------------------------------------

  /** Adds a serialized transaction to the mempool; returns a reason when it is refused. */
  addTransaction(bytes: Uint8Array): { ok: true; tx: ChainTransaction } | { ok: false; reason: string } {
    const admitted = admitTransaction(bytes, {
      isKnown: (hash) => this.findTransaction(hash) !== undefined,
      spentKeyImages: () => this.#mempool.addKeyImagesTo(this.#tree.spentKeyImages()),
    });
    if (!admitted.ok) return admitted;
    this.#mempool.add(admitted.tx);
    this.#emit({ kind: 'mempool' });
    return admitted;
  }

  /**
   * Drops a transaction from the mempool without mining it, as the daemon's mempool expiry does
   * (CRYPTONOTE_MEMPOOL_TX_LIVETIME); false when it is not in the mempool.
   */
  dropFromMempool(hashHex: string): boolean {
    const dropped = this.#mempool.remove(hashHex.toLowerCase());
    if (dropped) this.#emit({ kind: 'mempool' });
    return dropped;
  }

  // ---- internals -----------------------------------------------------------------------------

  /** What a block extending the current tip is checked against (exposed for tests and tools). */
  validationContext(): ValidationContext {
    return this.#context.on(this.tip, (hashHex) => this.#mempool.get(hashHex)?.feeAtomic);
  }

  /**
   * The context a submitted block is checked in: on its parent when that is a known block other
   * than the tip (an alternative block, whose transactions may be anywhere the devnet knows them:
   * fuegod checks them only when it switches to the branch), else on the tip.
   */
  #contextFor(blob: Uint8Array): ValidationContext {
    const parent = this.#knownParentOf(blob);
    if (parent === undefined || parent === this.tip) return this.validationContext();
    return this.#context.on(parent, (hashHex) => this.#knownTransaction(hashHex)?.feeAtomic);
  }

  /** The block `blob` builds on, when it parses and the devnet has that block. */
  #knownParentOf(blob: Uint8Array): ChainBlock | undefined {
    try {
      return this.#tree.blockById(bytesToHex(parseBlock(blob).prevId));
    } catch (error) {
      if (error instanceof CodecError) return undefined;
      throw error;
    }
  }

  /** On the tip, as an alternative block, or onto the main chain by the switch it causes (see submitBlock). */
  #receive(blob: Uint8Array, pow: PowCheck): SubmitResult {
    const verdict = validateBlock(blob, this.#contextFor(blob), pow);
    if (!verdict.accepted) return verdict;
    const parent = this.#tree.blockById(bytesToHex(verdict.block.prevId))!;
    if (parent === this.tip) return this.#acceptOnTip(verdict, blob);
    const transactions = verdict.block.transactionHashes.map(
      (hash) => this.#knownTransaction(bytesToHex(hash))!,
    );
    const block = chainBlockOf({ ...verdict, blob, transactions }, parent, this.#difficulty);
    this.#tree.keepAlternative(block);
    if (!this.#tree.isHeavierThanMain(block)) return kept(block);
    return this.#switchTo(block);
  }

  #accept(blob: Uint8Array, pow: PowCheck): SubmitResult {
    const verdict = validateBlock(blob, this.validationContext(), pow);
    return verdict.accepted ? this.#acceptOnTip(verdict, blob) : verdict;
  }

  #acceptOnTip(verdict: Extract<BlockVerdict, { accepted: true }>, blob: Uint8Array): SubmitResult {
    const included = this.#mempool.take(verdict.block.transactionHashes);
    const block = this.#append({ ...verdict, blob, transactions: included });
    return { accepted: true, block, placement: 'main-chain', orphaned: [] };
  }

  /**
   * Switches to the branch ending at `head` (heavier than the main chain) if checkBranchSwitch lets
   * it; else the branch stays alternative, or the blocks that do not connect are dropped.
   */
  #switchTo(head: ChainBlock): SubmitResult {
    const check = checkBranchSwitch(this.#tree, head, this.mempool(), this.#context);
    if (check.kind === 'lacks-transactions') return kept(head);
    if (check.kind === 'does-not-connect') {
      this.#tree.drop(check.unconnected);
      return { accepted: false, code: check.code, detail: check.detail };
    }
    return {
      accepted: true,
      block: head,
      placement: 'reorganized',
      orphaned: this.#connectBranch(check.branch),
    };
  }

  /**
   * Puts `branch` (alternative blocks, oldest first, forking from the main chain) on the main chain
   * at its own heights: the blocks it replaces become alternative blocks (what restoreLastOrphaned
   * puts back) and their transactions return to the mempool; the branch's leave it, and so does any
   * pooled transaction spending what they spend. Returns the replaced blocks.
   */
  #connectBranch(branch: readonly ChainBlock[]): ChainBlock[] {
    const orphaned = this.orphanLast(this.height - branch[0]!.height);
    this.#tree.attach(branch);
    this.#mempool.confirm(branch, this.#tree.spentKeyImages());
    this.#lastOrphaned = orphaned.map((block) => block.id);
    for (const block of branch) this.#emit({ kind: 'block', block });
    return orphaned;
  }

  /** The daemon gets the branch up to `idHex` from its peers when only the network has it (see fetchBranch). */
  #fetchFromNetwork(idHex: string): void {
    fetchBranch(this.network, idHex, {
      known: (id) => this.#tree.blockById(id) !== undefined,
      receive: (held) => {
        const setting = this.#difficulty;
        this.#difficulty = held.difficulty;
        try {
          return this.#receive(held.blob, { checkPow: false });
        } finally {
          this.#difficulty = setting;
        }
      },
    });
  }

  /** A transaction the devnet knows: pooled, on the main chain, or in an alternative block. */
  #knownTransaction(hashHex: string): ChainTransaction | undefined {
    return this.findTransaction(hashHex)?.tx ?? this.#tree.findInAlternative(hashHex);
  }

  /** Puts a valid block built on the tip on the main chain. */
  #append(valid: ValidBlock): ChainBlock {
    const block = chainBlockOf(valid, this.tip, this.#difficulty);
    this.#tree.extend(block);
    this.#emit({ kind: 'block', block });
    return block;
  }

  #emit(event: ChainEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

/** A valid block kept off the main chain (submitblock answers -7). */
function kept(block: ChainBlock): SubmitResult {
  return { accepted: true, block, placement: 'alternative', orphaned: [] };
}
