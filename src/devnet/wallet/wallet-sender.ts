import { reduceScalar } from '../../fuego/ed25519-scalar.js';
import { bytesToHex } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import type { Transaction } from '../../fuego/transaction.js';
import type { ChainState } from '../chain/chain-state.js';
import { depositInterestAtomic } from '../chain/deposit-interest.js';
import { deriveTxPublicKey } from '../chain/output-keys.js';
import { decoySupply, hasEnoughDecoys } from './decoy-supply.js';
import { selectInputs } from './input-selection.js';
import { type RelayFailureMode, SendFaults } from './send-faults.js';
import type { SentTransaction, SentTransactions, TransferRecord } from './sent-transactions.js';
import {
  type BuiltTransaction,
  buildTransaction,
  type PlannedOutput,
  type TransactionSpec,
} from './transaction-builder.js';
import type { WalletContainer } from './wallet-container.js';
import { WalletRpcError } from './wallet-errors.js';
import type { OwnedOutput, WalletOutputs } from './wallet-outputs.js';
import type { WalletPool } from './wallet-pool.js';

/** The fee 1.9.3's sendTransaction always pays, whatever `fee` says. */
export const WALLET_FEE_ATOMIC = 80_000n;
/** Decoys per input of sendTransaction: 1.9.3 ignores `anonymity` and always uses MINIMUM_MIXIN (rings of 3). */
export const SEND_MIXIN = 2;
/**
 * Without `requireDecoys`, a delayed transaction asking for more decoys than this is "MixIn count is
 * too big" (the real one refused 50 on a small chain).
 */
const MAX_ANONYMITY = 20;
/** CRYPTONOTE_MAX_TX_SIZE_LIMIT: the 800000-byte full-reward zone less 600 kept for the coinbase. */
const MAX_TRANSACTION_SIZE_BYTES = 799_400;

/** A transfer, deposit or withdrawal to build. */
export interface TransferPlan {
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

/** What the wallet's record of a transaction says besides its bytes. */
export interface SentNotes {
  readonly transfers: readonly TransferRecord[];
  readonly netAtomic: bigint;
  readonly feeAtomic: bigint;
  readonly depositId?: number | undefined;
}

export interface WalletSenderModules {
  readonly chain: ChainState;
  readonly container: WalletContainer;
  readonly outputs: WalletOutputs;
  readonly sent: SentTransactions;
  /** Where a relayed transaction becomes unconfirmed to the wallet (walletd's addUnconfirmedTransaction). */
  readonly pool: WalletPool;
}

export interface WalletSenderOptions {
  /** Seed of the wallet's transaction keys. */
  readonly seed: string;
  /** Refuse sends the chain cannot supply the decoys for (see decoy-supply.ts). */
  readonly requireDecoys: boolean;
  /** Whether the daemon answers: walletd asks it for decoys and relays through it. */
  readonly daemonReachable: () => boolean;
  /** Blocks the daemon's peers know beyond its tip (0: the daemon is synchronized). */
  readonly daemonBlocksBehind: () => number;
}

/**
 * walletd refuses to build a transaction while `knownBlockCount - localBlockCount > 2`: its node's
 * view of the daemon, where localBlockCount is the daemon's top block index and knownBlockCount the
 * highest index known from its peers (or the top) plus one. So a daemon two blocks behind its peers
 * is "not synchronized"; how far walletd's own scan trails does not matter.
 */
const MAX_DAEMON_SYNC_DIFF = 2;

/**
 * What every send shares: walletd's choice of inputs, its checks of funds, decoys and size, the
 * transaction keys, the record, and the relay to the daemon (with the faults tests arm).
 */
export class WalletSender {
  readonly #modules: WalletSenderModules;
  readonly #options: WalletSenderOptions;
  /** Refusals and relay failures tests arm on the next sends. */
  readonly sendFaults = new SendFaults();
  #txSerial = 0n;

  constructor(options: WalletSenderOptions, modules: WalletSenderModules) {
    this.#options = options;
    this.#modules = modules;
  }

  /**
   * Chooses inputs as walletd does, checks funds, decoys and size, then builds, records and (unless
   * delayed) relays the transaction. Records show walletd's transfer entries: destinations (type 0),
   * change back (type 2), and the spent amount per source address (negative, type 0); the net is
   * what the wallet's addresses lose.
   */
  buildAndRecord(plan: TransferPlan): SentTransaction {
    const needed = plan.outputs.reduce((s, o) => s + o.amount, 0n) + plan.fee;
    const fromExtraInputs = plan.extraInputs.reduce(
      (s, input) =>
        s +
        (input.kind === 'multisignature'
          ? input.amount + depositInterestAtomic(input.amount, input.term)
          : 0n),
      0n,
    );
    const candidates = this.#modules.outputs.unlocked(new Set(plan.sources));
    const { chosen, totalAtomic } = selectInputs(candidates, needed - fromExtraInputs);
    const gathered = totalAtomic + fromExtraInputs;
    if (gathered < needed) throw new WalletRpcError('INSUFFICIENT_FUNDS');
    // walletd asks the daemon for the decoys before it builds anything.
    if (plan.mixin > 0 && !this.#options.daemonReachable()) throw new WalletRpcError('NODE_CONNECT_ERROR');
    this.#checkDecoys(chosen, plan.mixin, plan.faultable);
    const changeAmount = gathered - needed;
    const built = this.build({
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

    const mine = new Set(this.#modules.container.addresses);
    const received =
      plan.outputs.filter((o) => mine.has(o.address)).reduce((s, o) => s + o.amount, 0n) + changeAmount;
    const notes: SentNotes = {
      transfers: transferEntries(plan, chosen, changeAmount),
      netAtomic: received - totalAtomic,
      feeAtomic: plan.fee,
      depositId: plan.depositId,
    };
    return this.commit(built, notes, plan.dispatch, plan.faultable);
  }

  /**
   * 41 "Daemon is not synchronized", as sendTransaction, createDeposit, estimateFusion and
   * sendFusionTransaction answer before anything else (their params read, nothing checked yet) while
   * the daemon trails its peers (see MAX_DAEMON_SYNC_DIFF) or has nothing but the genesis block.
   */
  requireDaemonSynced(): void {
    const localBlockCount = this.#modules.chain.height - 1;
    const knownBlockCount = localBlockCount + this.#options.daemonBlocksBehind() + 1;
    if (localBlockCount === 0 || knownBlockCount - localBlockCount > MAX_DAEMON_SYNC_DIFF) {
      throw new WalletRpcError('DAEMON_NOT_SYNCED');
    }
  }

  /** Builds with the wallet's next transaction key (a devnet stand-in for a random one). */
  build(spec: Omit<TransactionSpec, 'txPublicKey' | 'serial' | 'changeKeys'>): BuiltTransaction {
    this.#txSerial += 1n;
    return buildTransaction({
      ...spec,
      serial: this.#txSerial,
      txPublicKey: deriveTxPublicKey(this.#txSerial, new TextEncoder().encode(`${this.#options.seed}/tx`)),
      changeKeys: this.#modules.container.keysOf(spec.change.address),
    });
  }

  /**
   * Records a built transaction, then relays it unless it is delayed. As in walletd the record comes
   * first: when the relay fails (the daemon refuses it, or an armed relay fault) it stays, FAILED,
   * its inputs free again, and the send answers the daemon connection's error.
   */
  commit(
    built: BuiltTransaction,
    notes: SentNotes,
    dispatch: 'relay' | 'delayed',
    faultable: boolean,
  ): SentTransaction {
    const { chain, sent } = this.#modules;
    for (const owner of built.owners) chain.outputOwners.record(owner.keyHex, owner.address);
    const record: SentTransaction = {
      hash: built.hash,
      bytes: built.bytes,
      feeAtomic: notes.feeAtomic,
      transfers: notes.transfers,
      netAtomic: notes.netAtomic,
      depositId: notes.depositId,
      phase: dispatch === 'delayed' ? 'delayed' : 'relay-failed',
    };
    sent.add(record);
    if (dispatch === 'delayed') return record;
    const armed: RelayFailureMode | undefined = faultable ? this.sendFaults.takeRelayFailure() : undefined;
    const failure = armed ?? this.relay(built.bytes);
    if (failure === undefined) {
      record.phase = 'relayed';
      return record;
    }
    throw relayError(failure);
  }

  /** Hands a transaction to the daemon; how that failed, or undefined when the daemon took it. */
  relay(bytes: Uint8Array): RelayFailureMode | undefined {
    if (!this.#options.daemonReachable()) return 'unreachable';
    const taken = this.#modules.chain.addTransaction(bytes);
    if (!taken.ok) return 'refused';
    this.#modules.pool.addRelayed(taken.tx);
    return undefined;
  }

  /** sendTransaction's `transactionSecretKey` (deterministic per transaction on the devnet). */
  txSecretKey(hash: string): string {
    const input = new TextEncoder().encode(`${this.#options.seed}/tx-secret/${hash}`);
    return bytesToHex(reduceScalar(cnFastHash(input)));
  }

  /**
   * walletd asks the daemon for `mixin` decoys of each input's amount and refuses the send when any
   * amount has fewer ("MixIn count is too big"). With `requireDecoys` the devnet counts them on its
   * chain; without, it only refuses absurd counts. An armed refusal fault answers the same.
   */
  #checkDecoys(inputs: readonly OwnedOutput[], mixin: number, faultable: boolean): void {
    if (faultable && this.sendFaults.takeRefusal()) throw new WalletRpcError('MIXIN_COUNT_TOO_BIG');
    const amounts = inputs.map((o) => o.amount);
    const short = this.#options.requireDecoys
      ? mixin > 0 && !hasEnoughDecoys(decoySupply(this.#modules.chain), amounts, mixin)
      : mixin > MAX_ANONYMITY;
    if (short) throw new WalletRpcError('MIXIN_COUNT_TOO_BIG');
  }
}

/** The daemon connection's error walletd answers for a failed relay. */
export function relayError(failure: RelayFailureMode): WalletRpcError {
  return new WalletRpcError(failure === 'unreachable' ? 'NODE_CONNECT_ERROR' : 'NODE_INTERNAL_ERROR');
}

/** Total amount of `outputs` per address, in first-seen order. */
export function amountsByAddress(outputs: readonly OwnedOutput[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const output of outputs)
    totals.set(output.address, (totals.get(output.address) ?? 0n) + output.amount);
  return totals;
}

/** walletd's transfer entries of a send: destinations, change back, what each source put in. */
function transferEntries(
  plan: TransferPlan,
  chosen: readonly OwnedOutput[],
  changeAmount: bigint,
): TransferRecord[] {
  const transfers: TransferRecord[] = plan.outputs.map((o) => ({
    type: 0,
    address: o.address,
    amount: o.amount,
    message: '',
  }));
  if (changeAmount > 0n) transfers.push({ type: 2, address: plan.change, amount: changeAmount, message: '' });
  for (const [address, value] of amountsByAddress(chosen))
    transfers.push({ type: 0, address, amount: -value, message: '' });
  return transfers;
}
