import { hexToBytes } from '../../fuego/hex.js';
import type { ChainState } from '../chain/chain-state.js';
import { decodeStandardAddress, decodeWalletAddress, HASH_PATTERN } from './address-checks.js';
import type { SentTransaction, SentTransactions } from './sent-transactions.js';
import type { WalletContainer } from './wallet-container.js';
import { WalletInvalidRequest, WalletRpcError } from './wallet-errors.js';
import { WalletParams } from './wallet-params.js';
import {
  relayError,
  SEND_MIXIN,
  type TransferPlan,
  WALLET_FEE_ATOMIC,
  type WalletSender,
} from './wallet-sender.js';

export interface WalletTransfersModules {
  readonly chain: ChainState;
  readonly container: WalletContainer;
  readonly sent: SentTransactions;
  readonly sender: WalletSender;
}

/** walletd's transfers: sendTransaction, and delayed transactions (created, then sent or deleted). */
export class WalletTransfers {
  readonly #modules: WalletTransfersModules;

  constructor(modules: WalletTransfersModules) {
    this.#modules = modules;
  }

  /** Builds, records and relays a transfer (its `fee` and `anonymity` are required and ignored). */
  sendTransaction(params: unknown): { transactionHash: string; transactionSecretKey: string } {
    const { sender } = this.#modules;
    const sent = sender.buildAndRecord(this.#planTransfer(new WalletParams(params), 'send'));
    return { transactionHash: sent.hash, transactionSecretKey: sender.txSecretKey(sent.hash) };
  }

  /** Builds and records a transfer without sending it; it pays `fee` and asks `anonymity` decoys. */
  createDelayedTransaction(params: unknown): unknown {
    const plan = this.#planTransfer(new WalletParams(params), 'delayed');
    return { transactionHash: this.#modules.sender.buildAndRecord(plan).hash };
  }

  getDelayedTransactionHashes(): unknown {
    return { transactionHashes: this.#modules.sent.inPhase('delayed').map((tx) => tx.hash) };
  }

  /** Relays a delayed transaction; when the daemon refuses it, it stays delayed (walletd's commitTransaction). */
  sendDelayedTransaction(params: unknown): unknown {
    const tx = this.#delayed(params);
    const failure = this.#modules.sender.relay(tx.bytes);
    if (failure !== undefined) throw relayError(failure);
    tx.phase = 'relayed';
    return {};
  }

  /** Drops a delayed transaction: its inputs are free again, its record stays as CANCELLED. */
  deleteDelayedTransaction(params: unknown): unknown {
    this.#delayed(params).phase = 'discarded';
    return {};
  }

  /** A delayed transaction named by `transactionHash`. */
  #delayed(params: unknown): SentTransaction {
    const hash = new WalletParams(params).string('transactionHash');
    if (!HASH_PATTERN.test(hash)) throw new WalletRpcError('WRONG_HASH_FORMAT');
    const tx = this.#modules.sent.get(hash.toLowerCase());
    if (tx?.phase !== 'delayed') throw new WalletRpcError('OBJECT_NOT_FOUND');
    return tx;
  }

  /**
   * sendTransaction and createDelayedTransaction. Check order follows the captured walletd: params
   * read, the daemon synchronized (sendTransaction only, WalletService::sendTransaction), address
   * formats (sources, destinations, change), payment id, empty destination list, change address
   * rules, zero amounts, then (while building) funds, decoys, size. Sources come from `addresses`
   * (walletd ignores the interface document's `sourceAddresses`).
   */
  #planTransfer(p: WalletParams, mode: 'send' | 'delayed'): TransferPlan {
    const { container } = this.#modules;
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
    if (mode === 'send') this.#modules.sender.requireDaemonSynced();

    for (const source of sources) container.requireOwnSource(source);
    // Like walletd 1.9.3, whose address check needs exactly two keys: an integrated address is
    // "Invalid address" here (the payment id goes in `paymentId` or in `extra`).
    const destinations = transfers.map((t) => ({ ...t, decoded: decodeStandardAddress(t.address) }));
    if (changeAddress !== '') decodeWalletAddress(changeAddress);
    if (paymentId !== '' && !HASH_PATTERN.test(paymentId)) throw new WalletRpcError('INTERNAL_WALLET_ERROR');
    const extra = extraOf(paymentId, extraHex);
    if (destinations.length === 0) throw new WalletRpcError('ZERO_DESTINATION');
    const change = container.changeAddressFor(changeAddress, sources);
    if (destinations.some((d) => d.amount === 0n)) throw new WalletRpcError('ZERO_DESTINATION');

    return {
      sources: sources.length > 0 ? sources : container.addresses,
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
    };
  }
}

/** The caller's extra bytes; with a payment id walletd builds the extra from it (an empty `paymentId` means none). */
function extraOf(paymentId: string, extraHex: string): Uint8Array {
  try {
    return paymentId !== '' ? new Uint8Array(0) : hexToBytes(extraHex);
  } catch {
    throw new WalletRpcError('INTERNAL_WALLET_ERROR');
  }
}
