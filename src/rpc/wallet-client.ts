import type { z } from 'zod';
import { callJsonRpc, validateReply } from './json-rpc.js';
import { withRetry } from './retry.js';
import { RpcConnection, type RpcConnectionOptions } from './rpc-connection.js';
import { RpcError } from './rpc-error.js';
import {
  addressesSchema,
  estimateFusionSchema,
  type FusionEstimate,
  sendFusionTransactionSchema,
  sendTransactionSchema,
  singleTransactionSchema,
  transactionHashesSchema,
  transactionsSchema,
  unconfirmedHashesSchema,
  type WalletBalance,
  type WalletStatus,
  type WalletTransaction,
  walletBalanceSchema,
  walletStatusSchema,
} from './wallet-schemas.js';

/** An unconfirmed transaction's `blockIndex` in walletd records. */
export const UNCONFIRMED_BLOCK_INDEX = 4294967295;

/**
 * walletd's application errors. Its internal code lists (the wallet's, the service's and the daemon
 * connection's) overlap, so an error is identified by the pair (application_code, message), never
 * by the code alone.
 */
export const WALLET_ERRORS = {
  WRONG_BLOCK_ID_FORMAT: { applicationCode: 3, message: 'Wrong block id format' },
  INTERNAL_ERROR: { applicationCode: 5, message: 'Internal error occurred' },
  /**
   * Too many decoys asked for, or (any send on a young chain, whatever `anonymity` says) the daemon
   * has fewer than 2 outputs of an input's amount to offer: repeats until the chain has grown.
   */
  MIXIN_TOO_BIG: { applicationCode: 6, message: 'MixIn count is too big' },
  /** sendFusionTransaction: no power of ten has 12 outputs ready under the threshold. */
  FUSION_NOTHING_TO_OPTIMIZE: { applicationCode: 7, message: 'There are no inputs to optimize' },
  /** sendFusionTransaction: fewer than 12 inputs fit in a fusion (walletd's spelling). */
  FUSION_TOO_FEW_INPUTS: { applicationCode: 8, message: 'Not enough inputs to optimizne, minimum 12' },
  /** sendFusionTransaction: the threshold must be above the dust threshold (20000 atomic). */
  FUSION_THRESHOLD_TOO_LOW: { applicationCode: 10, message: 'Threshold must be greater than 10' },
  INVALID_ADDRESS: { applicationCode: 11, message: 'Invalid address' },
  /** The transaction would be over 799400 bytes (too many inputs): fuse the wallet's outputs first. */
  TRANSACTION_TOO_BIG: {
    applicationCode: 13,
    message: 'Transaction size is too big, please optimize your wallet.',
  },
  INSUFFICIENT_FUNDS: { applicationCode: 14, message: 'Insufficient funds' },
  DESTINATION_EMPTY: { applicationCode: 17, message: 'The destination is empty' },
  OBJECT_NOT_FOUND: { applicationCode: 29, message: 'Object not found' },
  WALLET_NOT_FOUND: { applicationCode: 30, message: 'Requested wallet not found' },
  CHANGE_ADDRESS_REQUIRED: { applicationCode: 31, message: 'Change address required' },
  CHANGE_ADDRESS_NOT_FOUND: { applicationCode: 32, message: 'Change address not found' },
  /** sendFusionTransaction from several addresses without `destinationAddress`. */
  DESTINATION_ADDRESS_REQUIRED: { applicationCode: 39, message: 'Destination address required' },
  DESTINATION_ADDRESS_NOT_FOUND: { applicationCode: 40, message: 'Destination address not found' },
  /** Sends and estimateFusion while walletd is more than 2 blocks behind its daemon. */
  DAEMON_NOT_SYNCED: { applicationCode: 41, message: 'Daemon is not synchronized' },
  /**
   * The daemon did not take the relayed transaction (sendrawtransaction status not OK). walletd
   * keeps the transaction's record with state FAILED; it was not sent.
   */
  NODE_REFUSED: { applicationCode: 5, message: 'Internal node error' },
  /** walletd could not reach its daemon (for a send: the record stays, state FAILED). */
  NODE_UNREACHABLE: { applicationCode: 7, message: "Can't connect to daemon" },
  NODE_NETWORK_ERROR: { applicationCode: 3, message: 'Network error' },
  NODE_BUSY: { applicationCode: 4, message: 'Node is busy' },
} as const;

/**
 * A record's `state` (walletd's WalletTransactionState). getTransactions and
 * getUnconfirmedTransactionHashes list SUCCEEDED ones only (an unconfirmed one included: its
 * blockIndex says so); getTransaction also returns the others, except DELETED.
 */
export const WALLET_TRANSACTION_STATE = {
  SUCCEEDED: 0,
  /** Built and recorded, but its relay to the daemon failed: not sent. */
  FAILED: 1,
  /** Sent, then dropped from the daemon's pool without a block; or a deleted delayed transaction. */
  CANCELLED: 2,
  /** A delayed transaction not sent yet. */
  CREATED: 3,
  /** Its last transfer belonged to a deleted address. */
  DELETED: 4,
} as const;

export type WalletErrorKind = keyof typeof WALLET_ERRORS;

/** Which known walletd error an RpcError is, if any. */
export function walletErrorKind(error: unknown): WalletErrorKind | undefined {
  if (!(error instanceof RpcError) || error.code !== 'RPC_ERROR') return undefined;
  const applicationCode = error.data['applicationCode'];
  const message = error.data['rpcMessage'];
  for (const [kind, known] of Object.entries(WALLET_ERRORS)) {
    if (known.applicationCode === applicationCode && known.message === message)
      return kind as WalletErrorKind;
  }
  return undefined;
}

export type WalletClientOptions = RpcConnectionOptions;

export interface Transfer {
  readonly address: string;
  readonly amountAtomic: bigint;
}

export interface SendTransactionRequest {
  readonly transfers: readonly Transfer[];
  /** Must be an address of this wallet. */
  readonly changeAddress: string;
  /** Sent as asked; walletd 1.9.3 ignores it and always pays 80000 (read the fee back from the record). */
  readonly feeAtomic: bigint;
  /** Ring size; walletd 1.9.3 ignores it (always 2) but requires the field. */
  readonly anonymity: number;
  /** Spend only from these wallet addresses (walletd's `addresses`). */
  readonly sourceAddresses?: readonly string[];
  /** 64 hex; exclusive with an integrated destination address. */
  readonly paymentId?: string;
  /** Raw hex added to the transaction extra (the payout batch id goes here). */
  readonly extraHex?: string;
  readonly unlockTime?: number;
}

export interface FusionRequest {
  /** Only outputs below this are joined; must be above 20000 (the dust threshold). */
  readonly thresholdAtomic: bigint;
  /** Required by walletd, which ignores it: a fusion has no decoys. */
  readonly anonymity: number;
  /** Fuse outputs of these wallet addresses only (default: all). */
  readonly addresses?: readonly string[];
  /** Where the joined outputs go; required when the container has several addresses. */
  readonly destinationAddress?: string;
}

export type TransactionRange =
  | { readonly firstBlockIndex: number; readonly blockCount: number }
  | { readonly blockHash: string; readonly blockCount: number };

/**
 * Typed client for walletd (JSON-RPC only). Amounts cross this boundary as bigint; the JSON
 * numbers on the wire stay below 2^53 for any real Fuego amount (max supply ~8.8e15 < 9e15).
 */
export class WalletClient extends RpcConnection {
  constructor(options: WalletClientOptions) {
    super(options);
  }

  getStatus(): Promise<WalletStatus> {
    return this.#read('getStatus', {}, walletStatusSchema);
  }

  /** Without `address`: the aggregate of every wallet address. */
  getBalance(address?: string): Promise<WalletBalance> {
    return this.#read('getBalance', address === undefined ? {} : { address }, walletBalanceSchema);
  }

  async getAddresses(): Promise<string[]> {
    return (await this.#read('getAddresses', {}, addressesSchema)).addresses;
  }

  async getTransactions(
    range: TransactionRange,
    filter: { addresses?: readonly string[]; paymentId?: string } = {},
  ): Promise<Array<{ blockHash: string; transactions: WalletTransaction[] }>> {
    const params = { ...range, ...filter };
    return (await this.#read('getTransactions', params, transactionsSchema)).items;
  }

  async getTransactionHashes(
    range: TransactionRange,
    filter: { addresses?: readonly string[]; paymentId?: string } = {},
  ): Promise<Array<{ blockHash: string; transactionHashes: string[] }>> {
    return (await this.#read('getTransactionHashes', { ...range, ...filter }, transactionHashesSchema)).items;
  }

  async getTransaction(transactionHash: string): Promise<WalletTransaction> {
    return (await this.#read('getTransaction', { transactionHash }, singleTransactionSchema)).transaction;
  }

  async getUnconfirmedTransactionHashes(): Promise<string[]> {
    return (await this.#read('getUnconfirmedTransactionHashes', {}, unconfirmedHashesSchema))
      .transactionHashes;
  }

  /**
   * Sends once; never retried here. After a timeout or transport error the transaction may or may
   * not have gone out: the payout runner finds out from the wallet's records (by the batch id in
   * `extra`) before doing anything else.
   */
  async sendTransaction(request: SendTransactionRequest): Promise<{ transactionHash: string }> {
    const params: Record<string, unknown> = {
      transfers: request.transfers.map((t) => ({ address: t.address, amount: toWireAmount(t.amountAtomic) })),
      changeAddress: request.changeAddress,
      fee: toWireAmount(request.feeAtomic),
      anonymity: request.anonymity,
    };
    // walletd reads the sources from `addresses`; the interface document's `sourceAddresses` would be ignored.
    if (request.sourceAddresses) params['addresses'] = request.sourceAddresses;
    if (request.paymentId !== undefined) params['paymentId'] = request.paymentId;
    if (request.extraHex !== undefined) params['extra'] = request.extraHex;
    if (request.unlockTime !== undefined) params['unlockTime'] = request.unlockTime;
    return this.timed('sendTransaction', async () =>
      validateReply(
        sendTransactionSchema,
        await callJsonRpc(this.http, this.nextId(), 'sendTransaction', params),
        'sendTransaction',
      ),
    );
  }

  /** How many outputs a fusion under `thresholdAtomic` could join, and how many unlocked outputs there are. */
  estimateFusion(request: {
    readonly thresholdAtomic: bigint;
    readonly addresses?: readonly string[];
  }): Promise<FusionEstimate> {
    const params: Record<string, unknown> = { threshold: toWireAmount(request.thresholdAtomic) };
    if (request.addresses) params['addresses'] = request.addresses;
    return this.#read('estimateFusion', params, estimateFusionSchema);
  }

  /**
   * Sends one fusion transaction (no fee, joins 12+ small outputs into a few). A send like
   * sendTransaction: never retried; after a transport error, look for the hash in the wallet's
   * records.
   */
  async sendFusionTransaction(request: FusionRequest): Promise<{ transactionHash: string }> {
    const params: Record<string, unknown> = {
      threshold: toWireAmount(request.thresholdAtomic),
      anonymity: request.anonymity,
    };
    if (request.addresses) params['addresses'] = request.addresses;
    if (request.destinationAddress !== undefined) params['destinationAddress'] = request.destinationAddress;
    return this.timed('sendFusionTransaction', async () =>
      validateReply(
        sendFusionTransactionSchema,
        await callJsonRpc(this.http, this.nextId(), 'sendFusionTransaction', params),
        'sendFusionTransaction',
      ),
    );
  }

  #read<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown>,
    schema: S,
  ): Promise<z.infer<S>> {
    return withRetry(this.retry, () =>
      this.timed(method, async () =>
        validateReply(schema, await callJsonRpc(this.http, this.nextId(), method, params), method),
      ),
    );
  }
}

function toWireAmount(amountAtomic: bigint): number {
  if (amountAtomic < 0n || amountAtomic > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RpcError('RPC_BAD_REQUEST', `amount ${amountAtomic} cannot be sent as a JSON number`, {
      amount: amountAtomic.toString(),
    });
  }
  return Number(amountAtomic);
}
