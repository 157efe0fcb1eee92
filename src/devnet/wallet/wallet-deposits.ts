import {
  DEPOSIT_MIN_AMOUNT_ATOMIC,
  DEPOSIT_TERM_BLOCKS,
  depositInterestAtomic,
} from '../chain/deposit-interest.js';
import { decodeWalletAddress } from './address-checks.js';
import type { WalletChain } from './wallet-chain-view.js';
import type { WalletContainer } from './wallet-container.js';
import { WalletRpcError } from './wallet-errors.js';
import { WalletParams } from './wallet-params.js';
import { SEND_MIXIN, type TransferPlan, WALLET_FEE_ATOMIC, type WalletSender } from './wallet-sender.js';

interface WalletDeposit {
  readonly id: number;
  readonly amount: bigint;
  readonly term: number;
  readonly creatingTransactionHash: string;
  spendingTransactionHash: string;
  /** Credited here on withdrawal. */
  readonly address: string;
}

export interface WalletDepositsModules {
  /** The chain as the wallet has scanned it. */
  readonly chain: WalletChain;
  readonly container: WalletContainer;
  readonly sender: WalletSender;
}

/**
 * walletd's deposits (HEAT CDs): locked for the term in a multisignature output, then withdrawn
 * with their interest to the address they credit.
 */
export class WalletDeposits {
  readonly #modules: WalletDepositsModules;
  readonly #deposits: WalletDeposit[] = [];

  constructor(modules: WalletDepositsModules) {
    this.#modules = modules;
  }

  /** getStatus's depositCount. */
  count(): number {
    return this.#deposits.length;
  }

  /**
   * getBalance's deposit part for `owners`: deposits in a block still in their term, and those past
   * it (with their interest) not yet withdrawn.
   */
  balance(owners: ReadonlySet<string>): { lockedDeposits: bigint; unlockedDeposits: bigint } {
    let lockedDeposits = 0n;
    let unlockedDeposits = 0n;
    for (const deposit of this.#deposits) {
      if (!owners.has(deposit.address) || deposit.spendingTransactionHash !== '') continue;
      const state = this.#stateOf(deposit);
      if (state.height === undefined) continue;
      if (state.locked) lockedDeposits += deposit.amount;
      else unlockedDeposits += deposit.amount + depositInterestAtomic(deposit.amount, deposit.term);
    }
    return { lockedDeposits, unlockedDeposits };
  }

  // ---- methods (params in, result out) -------------------------------------------------------

  /** Refused with 41 while the daemon is not synchronized (sendDeposit is not: walletd checks only here). */
  createDeposit(params: unknown): unknown {
    const p = new WalletParams(params);
    return this.#deposit(p, p.string('sourceAddress'), true);
  }

  sendDeposit(params: unknown): unknown {
    const p = new WalletParams(params);
    const destination = p.string('destinationAddress');
    decodeWalletAddress(destination);
    return this.#deposit(p, destination, false);
  }

  withdrawDeposit(params: unknown): unknown {
    const deposit = this.#find(new WalletParams(params).uint('depositId'));
    const state = this.#stateOf(deposit);
    if (state.height === undefined || state.locked || deposit.spendingTransactionHash !== '') {
      throw new WalletRpcError('DEPOSIT_LOCKED');
    }
    const interest = depositInterestAtomic(deposit.amount, deposit.term);
    const keys = decodeWalletAddress(deposit.address);
    const amount = deposit.amount + interest - WALLET_FEE_ATOMIC;
    const sent = this.#modules.sender.buildAndRecord(
      depositPlan({
        sources: [],
        outputs: [{ address: deposit.address, keys, amount, kind: 'key' }],
        change: deposit.address,
        depositId: deposit.id,
        extraInputs: [
          {
            kind: 'multisignature',
            amount: deposit.amount,
            signatureCount: 1,
            outputIndex: deposit.id,
            term: deposit.term,
          },
        ],
      }),
    );
    deposit.spendingTransactionHash = sent.hash;
    return { transactionHash: sent.hash };
  }

  getDeposit(params: unknown): unknown {
    const deposit = this.#find(new WalletParams(params).uint('depositId'));
    const state = this.#stateOf(deposit);
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

  // ---- internals -----------------------------------------------------------------------------

  /** createDeposit / sendDeposit: a deposit from `sourceAddress`, credited to `creditAddress`. */
  #deposit(p: WalletParams, creditAddress: string, checkSync: boolean): unknown {
    const amount = BigInt(p.uint('amount'));
    const term = p.uint('term');
    const source = p.string('sourceAddress');
    if (checkSync) this.#modules.sender.requireDaemonSynced();
    decodeWalletAddress(source);
    if (!this.#modules.container.has(source)) throw new WalletRpcError('WALLET_NOT_FOUND');
    if (term < DEPOSIT_TERM_BLOCKS) throw new WalletRpcError('DEPOSIT_TERM_TOO_SMALL');
    if (term > DEPOSIT_TERM_BLOCKS) throw new WalletRpcError('DEPOSIT_TERM_TOO_BIG');
    if (amount < DEPOSIT_MIN_AMOUNT_ATOMIC) throw new WalletRpcError('DEPOSIT_AMOUNT_TOO_SMALL');
    const id = this.#deposits.length;
    const keys = decodeWalletAddress(source);
    const sent = this.#modules.sender.buildAndRecord(
      depositPlan({
        sources: [source],
        outputs: [{ address: creditAddress, keys, amount, kind: 'multisignature', term }],
        change: source,
        depositId: id,
        extraInputs: [],
      }),
    );
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

  #find(id: number): WalletDeposit {
    const deposit = this.#deposits.find((d) => d.id === id);
    if (!deposit) throw new WalletRpcError('DEPOSIT_DOES_NOT_EXIST');
    return deposit;
  }

  /** Where the deposit's creating transaction is, and whether its term still runs. */
  #stateOf(deposit: WalletDeposit): { height: number | undefined; locked: boolean } {
    const { chain } = this.#modules;
    const found = chain.findTransaction(deposit.creatingTransactionHash);
    const height = found?.block?.height;
    if (height === undefined) return { height: undefined, locked: true };
    return { height, locked: chain.height < height + deposit.term };
  }
}

/** A deposit or a withdrawal: version 2, the standard fee and decoys, relayed at once, no faults. */
function depositPlan(
  parts: Pick<TransferPlan, 'sources' | 'outputs' | 'change' | 'depositId' | 'extraInputs'>,
): TransferPlan {
  return {
    ...parts,
    fee: WALLET_FEE_ATOMIC,
    unlockTime: 0n,
    paymentId: '',
    extra: new Uint8Array(0),
    version: 2,
    mixin: SEND_MIXIN,
    dispatch: 'relay',
    faultable: false,
  };
}
