import type { ChainState } from '../chain/chain-state.js';
import {
  DEPOSIT_MIN_AMOUNT_ATOMIC,
  DEPOSIT_TERM_BLOCKS,
  depositInterestAtomic,
} from '../chain/deposit-interest.js';
import { decodeWalletAddress } from './address-checks.js';
import type { SendFaults } from './send-faults.js';
import { SentTransactions } from './sent-transactions.js';
import { WalletContainer } from './wallet-container.js';
import { WalletRpcError } from './wallet-errors.js';
import { WalletFusion } from './wallet-fusion.js';
import { WalletOutputs } from './wallet-outputs.js';
import { WalletParams } from './wallet-params.js';
import { WalletRecords } from './wallet-records.js';
import { SEND_MIXIN, WALLET_FEE_ATOMIC, WalletSender } from './wallet-sender.js';
import { WalletTransfers } from './wallet-transfers.js';

interface WalletDeposit {
  readonly id: number;
  readonly amount: bigint;
  readonly term: number;
  readonly creatingTransactionHash: string;
  spendingTransactionHash: string;
  /** Credited here on withdrawal. */
  readonly address: string;
}

export interface WalletServiceOptions {
  readonly chain: ChainState;
  /** Seed for the view key and the first addresses (deterministic devnet wallets). */
  readonly seed: string;
  readonly addressCount: number;
  /** Refuse sends the chain cannot supply two decoys per input for (see decoy-supply.ts). */
  readonly requireDecoys?: boolean;
}

export type FailAfterBroadcastMode = 'error' | 'timeout' | 'drop';

/**
 * The simulated walletd: one container (one view key, N spend key pairs) whose balances and history
 * are derived from the devnet chain on every call, so reorgs are reflected without bookkeeping.
 * Outputs are found through the chain's record of output owners (see output-keys.ts), not by
 * stealth-address scanning. Each method takes walletd's raw `params` and returns its `result`.
 */
export class WalletService {
  readonly #chain: ChainState;
  readonly #container: WalletContainer;
  readonly #sent = new SentTransactions();
  readonly #outputs: WalletOutputs;
  readonly #records: WalletRecords;
  readonly #sender: WalletSender;
  readonly #transfers: WalletTransfers;
  readonly #fusion: WalletFusion;
  readonly #deposits: WalletDeposit[] = [];
  /** Refusals and relay failures tests arm on the next sends. */
  readonly sendFaults: SendFaults;

  constructor(options: WalletServiceOptions) {
    this.#chain = options.chain;
    this.#container = new WalletContainer(options.seed, options.addressCount);
    this.#outputs = new WalletOutputs(this.#chain, this.#container, this.#sent);
    this.#records = new WalletRecords(this.#chain, this.#container, this.#sent);
    const chain = this.#chain;
    const container = this.#container;
    this.#sender = new WalletSender(
      { seed: options.seed, requireDecoys: options.requireDecoys ?? false },
      { chain, container, outputs: this.#outputs, sent: this.#sent },
    );
    this.sendFaults = this.#sender.sendFaults;
    this.#transfers = new WalletTransfers({ chain, container, sent: this.#sent, sender: this.#sender });
    this.#fusion = new WalletFusion({ chain, container, outputs: this.#outputs, sender: this.#sender });
  }

  /** Standard addresses of the container, in creation order. */
  get addresses(): string[] {
    return this.#container.addresses;
  }

  /** Decoded keys of one of this wallet's addresses (for the devnet's own miner). */
  keysOf(address: string): { spendPublicKey: string; viewPublicKey: string } {
    return this.#container.keysOf(address);
  }

  /**
   * Hashes of every transaction this wallet built, oldest first, whatever became of them (for
   * tests: walletd lists failed and cancelled ones nowhere, getTransaction finds them by hash).
   */
  builtTransactionHashes(): string[] {
    return this.#sent.hashes();
  }

  // ---- methods (params in, result out) -------------------------------------------------------

  getStatus(): unknown {
    const tip = this.#chain.tip;
    return {
      addressCount: this.#container.addressCount,
      blockCount: this.#chain.height,
      depositCount: this.#deposits.length,
      knownBlockCount: this.#chain.height,
      lastBlockHash: tip.id,
      peerCount: 0,
      transactionCount: this.#records.count(),
    };
  }

  getAddresses(): unknown {
    return this.#container.getAddresses();
  }

  createAddress(params: unknown): unknown {
    return this.#container.createAddress(params);
  }

  createAddressList(params: unknown): unknown {
    return this.#container.createAddressList(params);
  }

  deleteAddress(params: unknown): unknown {
    return this.#container.deleteAddress(params);
  }

  getSpendKeys(params: unknown): unknown {
    return this.#container.getSpendKeys(params);
  }

  getViewKey(): unknown {
    return this.#container.getViewKey();
  }

  createIntegrated(params: unknown): unknown {
    return this.#container.createIntegrated(params);
  }

  splitIntegrated(params: unknown): unknown {
    return this.#container.splitIntegrated(params);
  }

  getBalance(params: unknown): unknown {
    const address = new WalletParams(params).optionalString('address');
    let owners: Set<string>;
    if (address === undefined) {
      owners = new Set(this.addresses);
    } else {
      decodeWalletAddress(address);
      if (!this.#container.has(address)) throw new WalletRpcError('WALLET_NOT_FOUND');
      owners = new Set([address]);
    }
    const balance = this.#balance(owners);
    return {
      availableBalance: balance.available,
      lockedAmount: balance.locked,
      lockedDepositBalance: balance.lockedDeposits,
      unlockedDepositBalance: balance.unlockedDeposits,
    };
  }

  getBlockHashes(params: unknown): unknown {
    const p = new WalletParams(params);
    const first = p.uint('firstBlockIndex');
    const count = p.uint('blockCount');
    const hashes = this.#chain
      .mainChain()
      .slice(first, first + count)
      .map((b) => b.id);
    return { blockHashes: hashes };
  }

  getTransactionHashes(params: unknown): unknown {
    return this.#records.getTransactionHashes(params);
  }

  getTransactions(params: unknown): unknown {
    return this.#records.getTransactions(params);
  }

  getTransaction(params: unknown): unknown {
    return this.#records.getTransaction(params);
  }

  getUnconfirmedTransactionHashes(params: unknown): unknown {
    return this.#records.getUnconfirmedTransactionHashes(params);
  }

  /** Builds, records and relays a transfer (its `fee` and `anonymity` are required and ignored). */
  sendTransaction(params: unknown): { transactionHash: string; transactionSecretKey: string } {
    return this.#transfers.sendTransaction(params);
  }

  createDelayedTransaction(params: unknown): unknown {
    return this.#transfers.createDelayedTransaction(params);
  }

  getDelayedTransactionHashes(): unknown {
    return this.#transfers.getDelayedTransactionHashes();
  }

  sendDelayedTransaction(params: unknown): unknown {
    return this.#transfers.sendDelayedTransaction(params);
  }

  deleteDelayedTransaction(params: unknown): unknown {
    return this.#transfers.deleteDelayedTransaction(params);
  }

  estimateFusion(params: unknown): unknown {
    return this.#fusion.estimateFusion(params);
  }

  sendFusionTransaction(params: unknown): unknown {
    return this.#fusion.sendFusionTransaction(params);
  }

  createDeposit(params: unknown): unknown {
    const p = new WalletParams(params);
    return this.#deposit(p, p.string('sourceAddress'));
  }

  sendDeposit(params: unknown): unknown {
    const p = new WalletParams(params);
    const destination = p.string('destinationAddress');
    decodeWalletAddress(destination);
    return this.#deposit(p, destination);
  }

  withdrawDeposit(params: unknown): unknown {
    const id = new WalletParams(params).uint('depositId');
    const deposit = this.#deposits.find((d) => d.id === id);
    if (!deposit) throw new WalletRpcError('DEPOSIT_DOES_NOT_EXIST');
    const state = this.#depositState(deposit);
    if (state.height === undefined || state.locked || deposit.spendingTransactionHash !== '') {
      throw new WalletRpcError('DEPOSIT_LOCKED');
    }
    const interest = depositInterestAtomic(deposit.amount, deposit.term);
    const keys = decodeWalletAddress(deposit.address);
    const sent = this.#sender.buildAndRecord({
      sources: [],
      outputs: [
        {
          address: deposit.address,
          keys,
          amount: deposit.amount + interest - WALLET_FEE_ATOMIC,
          kind: 'key',
        },
      ],
      change: deposit.address,
      fee: WALLET_FEE_ATOMIC,
      unlockTime: 0n,
      paymentId: '',
      extra: new Uint8Array(0),
      depositId: deposit.id,
      version: 2,
      mixin: SEND_MIXIN,
      dispatch: 'relay',
      faultable: false,
      extraInputs: [
        {
          kind: 'multisignature',
          amount: deposit.amount,
          signatureCount: 1,
          outputIndex: deposit.id,
          term: deposit.term,
        },
      ],
    });
    deposit.spendingTransactionHash = sent.hash;
    return { transactionHash: sent.hash };
  }

  getDeposit(params: unknown): unknown {
    const id = new WalletParams(params).uint('depositId');
    const deposit = this.#deposits.find((d) => d.id === id);
    if (!deposit) throw new WalletRpcError('DEPOSIT_DOES_NOT_EXIST');
    const state = this.#depositState(deposit);
    return {
      deposit: {
        address: deposit.address,
        amount: deposit.amount,
        creatingTransactionHash: deposit.creatingTransactionHash,
        height: state.height ?? 0,
        interest: depositInterestAtomic(deposit.amount, deposit.term),
        locked: state.locked,
        spendingTransactionHash: deposit.spendingTransactionHash,
        term: deposit.term,
        unlockHeight: (state.height ?? 0) + deposit.term,
      },
    };
  }

  /** save / reset / exportWallet: nothing to do for an in-memory container. */
  noop(): unknown {
    return {};
  }

  // ---- internals: balances, deposits --------------------------------------------------------

  #balance(owners: Set<string>): {
    available: bigint;
    locked: bigint;
    lockedDeposits: bigint;
    unlockedDeposits: bigint;
  } {
    const { available, locked } = this.#outputs.balance(owners);
    let lockedDeposits = 0n;
    let unlockedDeposits = 0n;
    for (const deposit of this.#deposits) {
      if (!owners.has(deposit.address) || deposit.spendingTransactionHash !== '') continue;
      const state = this.#depositState(deposit);
      if (state.height === undefined) continue;
      if (state.locked) lockedDeposits += deposit.amount;
      else unlockedDeposits += deposit.amount + depositInterestAtomic(deposit.amount, deposit.term);
    }
    return { available, locked, lockedDeposits, unlockedDeposits };
  }

  #depositState(deposit: WalletDeposit): { height: number | undefined; locked: boolean } {
    const found = this.#chain.findTransaction(deposit.creatingTransactionHash);
    const height = found?.block?.height;
    if (height === undefined) return { height: undefined, locked: true };
    return { height, locked: this.#chain.height < height + deposit.term };
  }

  // ---- internals: building transactions ------------------------------------------------------

  #deposit(p: WalletParams, creditAddress: string): unknown {
    const amount = BigInt(p.uint('amount'));
    const term = p.uint('term');
    const source = p.string('sourceAddress');
    decodeWalletAddress(source);
    if (!this.#container.has(source)) throw new WalletRpcError('WALLET_NOT_FOUND');
    if (term < DEPOSIT_TERM_BLOCKS) throw new WalletRpcError('DEPOSIT_TERM_TOO_SMALL');
    if (term > DEPOSIT_TERM_BLOCKS) throw new WalletRpcError('DEPOSIT_TERM_TOO_BIG');
    if (amount < DEPOSIT_MIN_AMOUNT_ATOMIC) throw new WalletRpcError('DEPOSIT_AMOUNT_TOO_SMALL');
    const id = this.#deposits.length;
    const keys = decodeWalletAddress(source);
    const sent = this.#sender.buildAndRecord({
      sources: [source],
      outputs: [{ address: creditAddress, keys, amount, kind: 'multisignature', term }],
      change: source,
      fee: WALLET_FEE_ATOMIC,
      unlockTime: 0n,
      paymentId: '',
      extra: new Uint8Array(0),
      depositId: id,
      version: 2,
      mixin: SEND_MIXIN,
      dispatch: 'relay',
      faultable: false,
      extraInputs: [],
    });
    this.#deposits.push({
      id,
      amount,
      term,
      creatingTransactionHash: sent.hash,
      spendingTransactionHash: '',
      address: creditAddress,
    });
    return { transactionHash: sent.hash };
  }
}
