import { reduceScalar } from '../../fuego/ed25519-scalar.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import type { Transaction } from '../../fuego/transaction.js';
import type { ChainState } from '../chain/chain-state.js';
import {
  DEPOSIT_MIN_AMOUNT_ATOMIC,
  DEPOSIT_TERM_BLOCKS,
  depositInterestAtomic,
} from '../chain/deposit-interest.js';
import { deriveTxPublicKey } from '../chain/output-keys.js';
import { decodeStandardAddress, decodeWalletAddress, HASH_PATTERN } from './address-checks.js';
import { decoySupply, hasEnoughDecoys } from './decoy-supply.js';
import {
  estimateFusion,
  FUSION_TX_MAX_SIZE_BYTES,
  FUSION_TX_MIN_INPUT_COUNT,
  maxFusionInputCount,
  pickFusionInputs,
} from './fusion-rules.js';
import { DUST_THRESHOLD_ATOMIC, selectInputs } from './input-selection.js';
import { type RelayFailureMode, SendFaults } from './send-faults.js';
import { type SentTransaction, SentTransactions, type TransferRecord } from './sent-transactions.js';
import {
  type BuiltTransaction,
  buildTransaction,
  type PlannedOutput,
  type TransactionSpec,
} from './transaction-builder.js';
import { WalletContainer } from './wallet-container.js';
import { WalletInvalidRequest, WalletRpcError } from './wallet-errors.js';
import { type OwnedOutput, WalletOutputs } from './wallet-outputs.js';
import { WalletParams } from './wallet-params.js';
import { WalletRecords } from './wallet-records.js';

/** The fee 1.9.3's sendTransaction always pays, whatever `fee` says. */
export const WALLET_FEE_ATOMIC = 80_000n;
/** Decoys per input of sendTransaction: 1.9.3 ignores `anonymity` and always uses MINIMUM_MIXIN (rings of 3). */
const SEND_MIXIN = 2;
/** A fusion transaction has no decoys: walletd passes mixin 0 whatever `anonymity` says. */
const FUSION_MIXIN = 0;
/**
 * Without `requireDecoys`, a delayed transaction asking for more decoys than this is "MixIn count is
 * too big" (the real one refused 50 on a small chain).
 */
const MAX_ANONYMITY = 20;
/** CRYPTONOTE_MAX_TX_SIZE_LIMIT: the 800000-byte full-reward zone less 600 kept for the coinbase. */
const MAX_TRANSACTION_SIZE_BYTES = 799_400;
interface WalletDeposit {
  readonly id: number;
  readonly amount: bigint;
  readonly term: number;
  readonly creatingTransactionHash: string;
  spendingTransactionHash: string;
  /** Credited here on withdrawal. */
  readonly address: string;
}

/** A transfer, deposit or withdrawal to build. */
interface TransferPlan {
  readonly sources: readonly string[];
  readonly outputs: readonly PlannedOutput[];
  readonly change: string;
  readonly fee: bigint;
  readonly unlockTime: bigint;
  readonly paymentId: string;
  readonly extra: Uint8Array;
  readonly depositId: number | undefined;
  readonly version: number;
  /** Inputs spent besides the wallet's outputs (a deposit being withdrawn). */
  readonly extraInputs: Transaction['inputs'];
  /** Decoys per input (walletd's mixIn). */
  readonly mixin: number;
  /** 'relay' sends it at once; 'delayed' keeps it until sendDelayedTransaction. */
  readonly dispatch: 'relay' | 'delayed';
  /** Whether the armed send faults apply (sendTransaction). */
  readonly faultable: boolean;
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
  readonly #deposits: WalletDeposit[] = [];
  readonly #seed: string;
  readonly #requireDecoys: boolean;
  /** Refusals and relay failures tests arm on the next sends. */
  readonly sendFaults = new SendFaults();
  #txSerial = 0n;

  constructor(options: WalletServiceOptions) {
    this.#chain = options.chain;
    this.#seed = options.seed;
    this.#requireDecoys = options.requireDecoys ?? false;
    this.#container = new WalletContainer(options.seed, options.addressCount);
    this.#outputs = new WalletOutputs(this.#chain, this.#container, this.#sent);
    this.#records = new WalletRecords(this.#chain, this.#container, this.#sent);
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
    const sent = this.#transfer(new WalletParams(params), 'send');
    return { transactionHash: sent.hash, transactionSecretKey: this.#txSecretKey(sent.hash) };
  }

  /** Builds and records a transfer without sending it; it pays `fee` and asks `anonymity` decoys. */
  createDelayedTransaction(params: unknown): unknown {
    return { transactionHash: this.#transfer(new WalletParams(params), 'delayed').hash };
  }

  getDelayedTransactionHashes(): unknown {
    return {
      transactionHashes: this.#sent.inPhase('delayed').map((tx) => tx.hash),
    };
  }

  /** Relays a delayed transaction; when the daemon refuses it, it stays delayed (walletd's commitTransaction). */
  sendDelayedTransaction(params: unknown): unknown {
    const tx = this.#delayed(params);
    if (!this.#chain.addTransaction(tx.bytes).ok) throw new WalletRpcError('NODE_INTERNAL_ERROR');
    tx.phase = 'relayed';
    return {};
  }

  /** Drops a delayed transaction: its inputs are free again, its record stays as CANCELLED. */
  deleteDelayedTransaction(params: unknown): unknown {
    this.#delayed(params).phase = 'discarded';
    return {};
  }

  /**
   * estimateFusion: how many of the wallet's unlocked outputs (of `addresses`, default all) a fusion
   * under `threshold` could take, and how many unlocked outputs there are.
   */
  estimateFusion(params: unknown): unknown {
    const p = new WalletParams(params);
    const threshold = BigInt(p.uint('threshold'));
    const sources = this.#fusionSources(p.optionalStringArray('addresses') ?? []);
    return estimateFusion(this.#outputs.unlocked(sources), threshold, this.#chain.height - 1);
  }

  /**
   * sendFusionTransaction (WalletGreen::createFusionTransaction): joins 12 or more ready outputs of
   * one power of ten below `threshold` into the digits of their sum, paid to `destinationAddress`
   * (default: the only address, or the only source), with no fee and no decoys; inputs are dropped,
   * largest first, until the transaction fits in 240000 bytes. A real transaction: mempool, then a
   * block, with a record of amount 0 and fee 0.
   */
  sendFusionTransaction(params: unknown): unknown {
    const p = new WalletParams(params);
    const threshold = BigInt(p.uint('threshold'));
    p.uint('anonymity');
    const requested = p.optionalStringArray('addresses') ?? [];
    const destinationAddress = p.optionalString('destinationAddress') ?? '';
    for (const address of requested) decodeStandardAddress(address);
    if (destinationAddress !== '') decodeStandardAddress(destinationAddress);
    const sources = this.#fusionSources(requested);
    const destination = this.#container.changeAddressFor(destinationAddress, requested, {
      required: 'DESTINATION_ADDRESS_REQUIRED',
      notFound: 'DESTINATION_ADDRESS_NOT_FOUND',
    });
    if (threshold <= DUST_THRESHOLD_ATOMIC) throw new WalletRpcError('THRESHOLD_TOO_LOW');

    const inputs = pickFusionInputs(
      this.#outputs.unlocked(sources),
      threshold,
      this.#chain.height - 1,
      maxFusionInputCount(FUSION_MIXIN),
    );
    if (inputs.length < FUSION_TX_MIN_INPUT_COUNT) throw new WalletRpcError('NOTHING_TO_OPTIMIZE');
    for (;;) {
      const sumAtomic = inputs.reduce((sum, input) => sum + input.amount, 0n);
      const built = this.#build({
        inputs,
        extraInputs: [],
        mixin: FUSION_MIXIN,
        outputs: [{ address: destination, keys: this.keysOf(destination), amount: sumAtomic, kind: 'key' }],
        change: { address: destination, amountAtomic: 0n },
        unlockTime: 0n,
        paymentId: '',
        extra: new Uint8Array(0),
        version: 1,
      });
      if (built.bytes.length <= FUSION_TX_MAX_SIZE_BYTES) {
        // walletd's record of a fusion: what each source address put in, what came back.
        const transfers: TransferRecord[] = [];
        for (const [address, amount] of amountsByAddress(inputs))
          transfers.push({ type: 0, address, amount: -amount, message: '' });
        transfers.push({ type: 0, address: destination, amount: sumAtomic, message: '' });
        const sent = this.#commit(built, { transfers, netAtomic: 0n, feeAtomic: 0n }, 'relay', true);
        return { transactionHash: sent.hash };
      }
      inputs.pop();
      if (inputs.length < FUSION_TX_MIN_INPUT_COUNT) throw new WalletRpcError('MINIMUM_INPUT_COUNT');
    }
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
    const sent = this.#buildAndRecord({
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

  // ---- internals: sending -------------------------------------------------------------------

  /** The source addresses of a fusion (each must be the wallet's), or every address when none given. */
  #fusionSources(requested: readonly string[]): Set<string> {
    for (const address of requested) this.#container.requireOwnSource(address);
    return new Set(requested.length > 0 ? requested : this.addresses);
  }

  /** A delayed transaction named by `transactionHash`. */
  #delayed(params: unknown): SentTransaction {
    const hash = new WalletParams(params).string('transactionHash');
    if (!HASH_PATTERN.test(hash)) throw new WalletRpcError('WRONG_HASH_FORMAT');
    const tx = this.#sent.get(hash.toLowerCase());
    if (tx?.phase !== 'delayed') throw new WalletRpcError('OBJECT_NOT_FOUND');
    return tx;
  }

  /**
   * sendTransaction and createDelayedTransaction. Check order follows the captured walletd: address
   * formats (sources, destinations, change), payment id, empty destination list, change address
   * rules, zero amounts, then (while building) funds, decoys, size. Sources come from `addresses`
   * (walletd ignores the interface document's `sourceAddresses`).
   */
  #transfer(p: WalletParams, mode: 'send' | 'delayed'): SentTransaction {
    const transfers = p.transfers('transfers');
    const requestedFee = BigInt(p.uint('fee'));
    const anonymity = p.uint('anonymity');
    const sources = p.optionalStringArray('addresses') ?? [];
    const changeAddress = p.optionalString('changeAddress') ?? '';
    const paymentId = p.optionalString('paymentId') ?? '';
    const extraHex = p.optionalString('extra') ?? '';
    const unlockTime = BigInt(p.optionalUint('unlockTime') ?? 0);
    // walletd's request serializer refuses the two together.
    if (p.has('extra') && p.has('paymentId')) throw new WalletInvalidRequest('extra and paymentId');

    for (const source of sources) this.#container.requireOwnSource(source);
    // Like walletd 1.9.3, whose address check needs exactly two keys: an integrated address is
    // "Invalid address" here (the payment id goes in `paymentId` or in `extra`).
    const destinations = transfers.map((t) => ({ ...t, decoded: decodeStandardAddress(t.address) }));
    if (changeAddress !== '') decodeWalletAddress(changeAddress);
    if (paymentId !== '' && !HASH_PATTERN.test(paymentId)) throw new WalletRpcError('INTERNAL_WALLET_ERROR');
    let extra: Uint8Array;
    try {
      // With a payment id walletd builds the extra from it (an empty `paymentId` means none).
      extra = paymentId !== '' ? new Uint8Array(0) : hexToBytes(extraHex);
    } catch {
      throw new WalletRpcError('INTERNAL_WALLET_ERROR');
    }
    if (destinations.length === 0) throw new WalletRpcError('ZERO_DESTINATION');
    const change = this.#container.changeAddressFor(changeAddress, sources);
    if (destinations.some((d) => d.amount === 0n)) throw new WalletRpcError('ZERO_DESTINATION');

    return this.#buildAndRecord({
      sources: sources.length > 0 ? sources : this.addresses,
      outputs: destinations.map((d) => ({
        address: d.address,
        keys: d.decoded,
        amount: d.amount,
        kind: 'key' as const,
      })),
      change,
      fee: mode === 'delayed' ? requestedFee : WALLET_FEE_ATOMIC,
      unlockTime,
      paymentId,
      extra,
      depositId: undefined,
      version: 1,
      mixin: mode === 'delayed' ? anonymity : SEND_MIXIN,
      dispatch: mode === 'delayed' ? 'delayed' : 'relay',
      faultable: mode === 'send',
      extraInputs: [],
    });
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
    const sent = this.#buildAndRecord({
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

  /**
   * Chooses inputs as walletd does, checks funds, decoys and size, then builds, records and (unless
   * delayed) relays the transaction. Records show walletd's transfer entries: destinations (type 0),
   * change back (type 2), and the spent amount per source address (negative, type 0); the net is
   * what the wallet's addresses lose.
   */
  #buildAndRecord(plan: TransferPlan): SentTransaction {
    const needed = plan.outputs.reduce((s, o) => s + o.amount, 0n) + plan.fee;
    const fromExtraInputs = plan.extraInputs.reduce(
      (s, input) =>
        s +
        (input.kind === 'multisignature'
          ? input.amount + depositInterestAtomic(input.amount, input.term)
          : 0n),
      0n,
    );
    const candidates = this.#outputs.unlocked(new Set(plan.sources));
    const { chosen, totalAtomic } = selectInputs(candidates, needed - fromExtraInputs);
    const gathered = totalAtomic + fromExtraInputs;
    if (gathered < needed) throw new WalletRpcError('INSUFFICIENT_FUNDS');
    this.#checkDecoys(chosen, plan.mixin, plan.faultable);
    const changeAmount = gathered - needed;
    const built = this.#build({
      inputs: chosen,
      extraInputs: plan.extraInputs,
      mixin: plan.mixin,
      outputs: plan.outputs,
      change: { address: plan.change, amountAtomic: changeAmount },
      unlockTime: plan.unlockTime,
      paymentId: plan.paymentId,
      extra: plan.extra,
      version: plan.version,
    });
    if (built.bytes.length > MAX_TRANSACTION_SIZE_BYTES) throw new WalletRpcError('TRANSACTION_SIZE_TOO_BIG');

    const mine = new Set(this.addresses);
    const transfers: TransferRecord[] = plan.outputs.map((o) => ({
      type: 0,
      address: o.address,
      amount: o.amount,
      message: '',
    }));
    if (changeAmount > 0n)
      transfers.push({ type: 2, address: plan.change, amount: changeAmount, message: '' });
    for (const [address, value] of amountsByAddress(chosen))
      transfers.push({ type: 0, address, amount: -value, message: '' });
    const received =
      plan.outputs.filter((o) => mine.has(o.address)).reduce((s, o) => s + o.amount, 0n) + changeAmount;
    return this.#commit(
      built,
      {
        transfers,
        netAtomic: received - totalAtomic,
        feeAtomic: plan.fee,
        depositId: plan.depositId,
      },
      plan.dispatch,
      plan.faultable,
    );
  }

  /**
   * walletd asks the daemon for `mixin` decoys of each input's amount and refuses the send when any
   * amount has fewer ("MixIn count is too big"). With `requireDecoys` the devnet counts them on its
   * chain; without, it only refuses absurd counts. An armed refusal fault answers the same.
   */
  #checkDecoys(inputs: readonly OwnedOutput[], mixin: number, faultable: boolean): void {
    if (faultable && this.sendFaults.takeRefusal()) throw new WalletRpcError('MIXIN_COUNT_TOO_BIG');
    const amounts = inputs.map((o) => o.amount);
    const short = this.#requireDecoys
      ? mixin > 0 && !hasEnoughDecoys(decoySupply(this.#chain), amounts, mixin)
      : mixin > MAX_ANONYMITY;
    if (short) throw new WalletRpcError('MIXIN_COUNT_TOO_BIG');
  }

  /** Builds with the wallet's next transaction key (a devnet stand-in for a random one). */
  #build(spec: Omit<TransactionSpec, 'txPublicKey' | 'serial' | 'changeKeys'>): BuiltTransaction {
    this.#txSerial += 1n;
    return buildTransaction({
      ...spec,
      serial: this.#txSerial,
      txPublicKey: deriveTxPublicKey(this.#txSerial, new TextEncoder().encode(`${this.#seed}/tx`)),
      changeKeys: this.keysOf(spec.change.address),
    });
  }

  /**
   * Records a built transaction, then relays it unless it is delayed. As in walletd the record comes
   * first: when the relay fails (the daemon refuses it, or an armed relay fault) it stays, FAILED,
   * its inputs free again, and the send answers the daemon connection's error.
   */
  #commit(
    built: BuiltTransaction,
    notes: {
      transfers: readonly TransferRecord[];
      netAtomic: bigint;
      feeAtomic: bigint;
      depositId?: number | undefined;
    },
    dispatch: 'relay' | 'delayed',
    faultable: boolean,
  ): SentTransaction {
    for (const owner of built.owners) this.#chain.outputOwners.record(owner.keyHex, owner.address);
    const record: SentTransaction = {
      hash: built.hash,
      bytes: built.bytes,
      feeAtomic: notes.feeAtomic,
      transfers: notes.transfers,
      netAtomic: notes.netAtomic,
      depositId: notes.depositId,
      phase: dispatch === 'delayed' ? 'delayed' : 'relay-failed',
    };
    this.#sent.add(record);
    if (dispatch === 'delayed') return record;
    const failure: RelayFailureMode | undefined = faultable ? this.sendFaults.takeRelayFailure() : undefined;
    if (failure === undefined && this.#chain.addTransaction(built.bytes).ok) {
      record.phase = 'relayed';
      return record;
    }
    throw new WalletRpcError(failure === 'unreachable' ? 'NODE_CONNECT_ERROR' : 'NODE_INTERNAL_ERROR');
  }

  #txSecretKey(hash: string): string {
    return bytesToHex(reduceScalar(cnFastHash(new TextEncoder().encode(`${this.#seed}/tx-secret/${hash}`))));
  }
}

/** Total amount of `outputs` per address, in first-seen order. */
function amountsByAddress(outputs: readonly OwnedOutput[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const output of outputs)
    totals.set(output.address, (totals.get(output.address) ?? 0n) + output.amount);
  return totals;
}
