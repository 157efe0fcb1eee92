import { bytesToHex } from '../../fuego/hex.js';
import type { Transaction } from '../../fuego/transaction.js';
import { parseTxExtra } from '../../fuego/tx-extra.js';
import type { ChainBlock } from '../chain/chain-state.js';
import { decodeWalletAddress, HASH_PATTERN } from './address-checks.js';
import {
  parseSent,
  type SentTransaction,
  type SentTransactions,
  type TransferRecord,
} from './sent-transactions.js';
import type { WalletChain } from './wallet-chain-view.js';
import type { WalletContainer } from './wallet-container.js';
import { WalletInvalidRequest, WalletRpcError } from './wallet-errors.js';
import { WalletParams } from './wallet-params.js';
import { type RecordMovement, rebuiltMovement } from './wallet-rebuilt.js';

/** blockIndex of a transaction not yet in a block. */
export const UNCONFIRMED_BLOCK_INDEX = 4294967295;
/** Wallet creation height: getTransactions with an address filter lists blocks from here. */
const WALLET_START_HEIGHT = 1;

/**
 * A record's `state` (WalletTransactionState). walletd lists only SUCCEEDED transactions in
 * getTransactions and getUnconfirmedTransactionHashes; getTransaction finds every one but DELETED.
 */
const WalletTransactionState = {
  SUCCEEDED: 0,
  /** built and recorded, but the daemon did not take it */
  FAILED: 1,
  /** sent, then gone from the daemon's pool without a block; or a deleted delayed transaction */
  CANCELLED: 2,
  /** a delayed transaction not sent yet */
  CREATED: 3,
  /** its last transfer went with a deleted address (not modelled by the devnet) */
  DELETED: 4,
} as const;

/** A wallet transaction record (interface document 2.4, walletd's TransactionRpcInfo). */
export interface TransactionRecord {
  readonly amount: bigint;
  readonly blockIndex: number;
  readonly confirmations: number;
  readonly depositCount: number;
  readonly extra: string;
  readonly fee: bigint;
  readonly firstDepositId: number;
  readonly isBase: boolean;
  readonly paymentId: string;
  readonly state: number;
  readonly timestamp: bigint;
  readonly transactionHash: string;
  readonly transfers: readonly TransferRecord[];
  readonly unlockTime: bigint;
}

/** The blocks getTransactions / getTransactionHashes cover and what they keep of them. */
interface TransactionQuery {
  readonly start: number;
  readonly blockCount: number;
  readonly filter: ReadonlySet<string> | undefined;
  readonly paymentId: string | undefined;
}

interface BlockItem {
  readonly blockHash: string;
  readonly records: TransactionRecord[];
}

export interface WalletRecordsModules {
  /** The chain as the wallet has scanned it. */
  readonly chain: WalletChain;
  readonly container: WalletContainer;
  readonly sent: SentTransactions;
  /** Transactions the wallet has lost its record of until it finds them again (wallet-forgotten.ts). */
  readonly forgotten: Forgotten;
}

/** What the records need of the forgotten transactions (wallet-forgotten.ts). */
interface Forgotten {
  has(hash: string): boolean;
  /** Found again: its record is the one walletd rebuilds from the chain. */
  rebuilt(hash: string): boolean;
}

/**
 * walletd's transaction history, derived from the chain on every call: a record for every
 * transaction paying the wallet, with the wallet's own (built, possibly never broadcast) ones
 * described by what it remembers of them.
 */
export class WalletRecords {
  readonly #chain: WalletChain;
  readonly #container: WalletContainer;
  readonly #sent: SentTransactions;
  readonly #forgotten: Forgotten;

  constructor(modules: WalletRecordsModules) {
    this.#chain = modules.chain;
    this.#container = modules.container;
    this.#sent = modules.sent;
    this.#forgotten = modules.forgotten;
  }

  /** getStatus's transactionCount. */
  count(): number {
    return this.#all().length;
  }

  // ---- methods (params in, result out) -------------------------------------------------------

  getTransactionHashes(params: unknown): unknown {
    const items = this.#transactionItems(params);
    return {
      items: items.map((item) => ({
        blockHash: item.blockHash,
        transactionHashes: item.records.map((r) => r.transactionHash),
      })),
    };
  }

  getTransactions(params: unknown): unknown {
    const items = this.#transactionItems(params);
    return { items: items.map((item) => ({ blockHash: item.blockHash, transactions: item.records })) };
  }

  getTransaction(params: unknown): unknown {
    const hash = new WalletParams(params).string('transactionHash');
    if (!HASH_PATTERN.test(hash)) throw new WalletRpcError('WRONG_HASH_FORMAT');
    const record = this.#all().find((r) => r.transactionHash === hash.toLowerCase());
    if (!record) throw new WalletRpcError('OBJECT_NOT_FOUND');
    return { transaction: record };
  }

  getUnconfirmedTransactionHashes(params: unknown): unknown {
    const filter = new WalletParams(params).optionalStringArray('addresses');
    if (filter) for (const address of filter) decodeWalletAddress(address);
    const hashes = this.#sent
      .all()
      .filter((tx) => tx.phase === 'relayed' && this.#isInMempool(tx.hash) && !this.#forgotten.has(tx.hash))
      .filter((tx) => !filter || this.#movementOf(tx)?.transfers.some((t) => filter.includes(t.address)))
      .map((tx) => tx.hash);
    return { transactionHashes: hashes };
  }

  // ---- internals -----------------------------------------------------------------------------

  /**
   * Records of every transaction touching the wallet, oldest first (mempool next), then those
   * of the wallet's own that are in neither (delayed, failed, cancelled).
   */
  #all(): TransactionRecord[] {
    const records: TransactionRecord[] = [];
    for (const block of this.#chain.mainChain()) {
      records.push(...this.#blockRecords(block));
    }
    for (const tx of this.#chain.mempool()) {
      const record = this.#record(tx.hash, tx.tx, undefined, tx.feeAtomic, false);
      if (record) records.push(record);
    }
    for (const tx of this.#sent.all()) {
      if (this.#chain.findTransaction(tx.hash) === undefined)
        records.push(this.#record(tx.hash, undefined, undefined, tx.feeAtomic, false)!);
    }
    return records.filter((r) => !this.#forgotten.has(r.transactionHash));
  }

  #blockRecords(block: ChainBlock, filter?: ReadonlySet<string>): TransactionRecord[] {
    const records: TransactionRecord[] = [];
    const coinbase = this.#record(block.coinbaseHash, block.block.baseTransaction, block, 0n, true, filter);
    if (coinbase) records.push(coinbase);
    for (const tx of block.transactions) {
      if (this.#forgotten.has(tx.hash)) continue;
      const record = this.#record(tx.hash, tx.tx, block, tx.feeAtomic, false, filter);
      if (record) records.push(record);
    }
    return records;
  }

  /** One record, or undefined when the transaction does not touch the wallet (or the filter). */
  #record(
    hash: string,
    tx: Transaction | undefined,
    block: ChainBlock | undefined,
    feeAtomic: bigint,
    isBase: boolean,
    filter?: ReadonlySet<string>,
  ): TransactionRecord | undefined {
    const sent = this.#sent.get(hash);
    const transaction = tx ?? (sent ? parseSent(sent) : undefined);
    if (!transaction) return undefined;
    const movement = sent ? this.#movementOf(sent, transaction) : this.#incoming(transaction);
    if (!movement) return undefined;
    const { transfers, amount } = movement;
    // A rebuilt record is a blockchain one: no deposit fields unless a block brought a deposit.
    const built = sent !== undefined && !this.#forgotten.rebuilt(hash);
    const depositId = sent?.depositId !== undefined && (built || block) ? sent.depositId : undefined;
    if (filter && !transfers.some((t) => filter.has(t.address))) return undefined;
    const blockIndex = block ? block.height : UNCONFIRMED_BLOCK_INDEX;
    return {
      amount,
      blockIndex,
      // walletd counts from its daemon's known block count, in uint32: a pooled transaction
      // (blockIndex 2^32 − 1) shows that count + 1 (captures 45 and 53: 65 at blockCount 64), not 0.
      confirmations: (this.#chain.knownBlockCount - blockIndex) >>> 0,
      // walletd leaves a built transaction's deposit fields unset: every one it sent says 1 and a
      // leftover id (captures 45, 53, 55), deposit or not; received ones say 0 and -1.
      depositCount: built || depositId !== undefined ? 1 : 0,
      extra: bytesToHex(transaction.extra),
      fee: feeAtomic,
      firstDepositId: depositId ?? (built ? leftoverDepositId(hash) : -1),
      isBase,
      paymentId: paymentIdOf(transaction.extra),
      // walletd reports 0 ("succeeded") for sent-but-unconfirmed transactions too; blockIndex tells them apart.
      state: sent ? this.#stateOf(sent) : WalletTransactionState.SUCCEEDED,
      timestamp: block ? block.block.timestamp : 0n,
      transactionHash: hash,
      transfers: transfers.map((t) => ({
        address: t.address,
        amount: t.amount,
        message: t.message,
        type: t.type,
      })),
      unlockTime: transaction.unlockTime,
    };
  }

  /**
   * What a transaction the wallet built moved: as it recorded it at send, or, once it forgot and
   * found it again, as walletd rebuilds it from the chain (wallet-rebuilt.ts).
   */
  #movementOf(sent: SentTransaction, transaction = parseSent(sent)): RecordMovement | undefined {
    if (!this.#forgotten.rebuilt(sent.hash)) return { transfers: sent.transfers, amount: sent.netAtomic };
    if (!transaction) return undefined;
    return rebuiltMovement(transaction, sent, {
      addresses: this.#container.addresses,
      ownerOf: (key) => this.#chain.outputOwners.ownerOf(key),
    });
  }

  /**
   * What a transaction the wallet did not build pays its addresses: one incoming transfer per
   * address, or undefined when it pays none of them.
   */
  #incoming(transaction: Transaction): RecordMovement | undefined {
    const incoming = new Map<string, bigint>();
    for (const output of transaction.outputs) {
      if (output.kind !== 'key') continue;
      const owner = this.#chain.outputOwners.ownerOf(bytesToHex(output.key));
      if (owner !== undefined && this.#container.has(owner)) {
        incoming.set(owner, (incoming.get(owner) ?? 0n) + output.amount);
      }
    }
    if (incoming.size === 0) return undefined;
    return {
      transfers: [...incoming].map(([address, value]) => ({ type: 0, address, amount: value, message: '' })),
      amount: [...incoming.values()].reduce((s, v) => s + v, 0n),
    };
  }

  /** The record state of a transaction this wallet built (see WalletTransactionState). */
  #stateOf(sent: SentTransaction): number {
    switch (sent.phase) {
      case 'delayed':
        return WalletTransactionState.CREATED;
      case 'relay-failed':
        return WalletTransactionState.FAILED;
      case 'discarded':
        return WalletTransactionState.CANCELLED;
      case 'relayed':
        // Gone from both the chain and the pool (e.g. expired from the daemon's mempool).
        return this.#chain.findTransaction(sent.hash) !== undefined
          ? WalletTransactionState.SUCCEEDED
          : WalletTransactionState.CANCELLED;
    }
  }

  #isInMempool(hash: string): boolean {
    const found = this.#chain.findTransaction(hash);
    return found !== undefined && found.block === undefined;
  }

  /**
   * getTransactions / getTransactionHashes. With an `addresses` filter walletd lists every block of
   * the range from the wallet's start height (empty lists included); without one only blocks with
   * wallet transactions.
   */
  #transactionItems(params: unknown): BlockItem[] {
    const { start, blockCount, filter, paymentId } = this.#readQuery(params);
    const items: BlockItem[] = [];
    const chain = this.#chain.mainChain();
    for (
      let height = Math.max(start, WALLET_START_HEIGHT);
      height < Math.min(chain.length, start + blockCount);
      height++
    ) {
      const block = chain[height]!;
      let records = this.#blockRecords(block, filter);
      if (paymentId !== undefined) records = records.filter((r) => r.paymentId === paymentId.toLowerCase());
      if (records.length > 0 || filter) items.push({ blockHash: block.id, records });
    }
    return items;
  }

  /** Exactly one of blockHash / firstBlockIndex, blockCount required; checked in walletd's order. */
  #readQuery(params: unknown): TransactionQuery {
    const p = new WalletParams(params);
    const blockHash = p.optionalString('blockHash');
    const firstIndex = p.optionalUint('firstBlockIndex');
    const blockCount = p.uint('blockCount');
    const addresses = p.optionalStringArray('addresses');
    const paymentId = p.optionalString('paymentId');
    if ((blockHash === undefined) === (firstIndex === undefined))
      throw new WalletInvalidRequest('blockHash xor firstBlockIndex');
    if (addresses) for (const address of addresses) decodeWalletAddress(address);
    if (paymentId !== undefined && !HASH_PATTERN.test(paymentId))
      throw new WalletRpcError('WRONG_PAYMENT_ID_FORMAT');
    let start: number;
    if (blockHash !== undefined) {
      if (!HASH_PATTERN.test(blockHash)) throw new WalletRpcError('WRONG_HASH_FORMAT');
      const block = this.#chain.blockById(blockHash);
      if (!block || block.orphaned) throw new WalletRpcError('OBJECT_NOT_FOUND');
      start = block.height;
    } else {
      start = firstIndex!;
    }
    return { start, blockCount, filter: addresses ? new Set(addresses) : undefined, paymentId };
  }
}

/**
 * A stand-in for the uninitialised firstDepositId walletd reports for a plain send: a heap-address
 * sized number (like the captured 140411406529504), fixed per transaction.
 */
function leftoverDepositId(hash: string): number {
  return 0x7f00_0000_0000 + Number.parseInt(hash.slice(0, 8), 16) * 16;
}

/** The 32-byte payment id carried in an extra nonce (`02 21 00 <id>`), or ''. */
function paymentIdOf(extra: Uint8Array): string {
  try {
    for (const field of parseTxExtra(extra)) {
      if (field.kind === 'nonce' && field.nonce.length === 33 && field.nonce[0] === 0) {
        return bytesToHex(field.nonce.subarray(1));
      }
    }
  } catch {
    // An extra the parser rejects (e.g. caller bytes) simply has no readable payment id.
  }
  return '';
}
