import type { z } from 'zod';
import { callJsonRpc, validateReply } from './json-rpc.js';
import { withRetry } from './retry.js';
import { RpcConnection, type RpcConnectionOptions } from './rpc-connection.js';
import { RpcError } from './rpc-error.js';
import {
  addressesSchema,
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
 * walletd's application errors. Its two internal code lists overlap, so an error is identified by
 * the pair (application_code, message), never by the code alone.
 */
export const WALLET_ERRORS = {
  WRONG_BLOCK_ID_FORMAT: { applicationCode: 3, message: 'Wrong block id format' },
  INTERNAL_ERROR: { applicationCode: 5, message: 'Internal error occurred' },
  MIXIN_TOO_BIG: { applicationCode: 6, message: 'MixIn count is too big' },
  INVALID_ADDRESS: { applicationCode: 11, message: 'Invalid address' },
  INSUFFICIENT_FUNDS: { applicationCode: 14, message: 'Insufficient funds' },
  DESTINATION_EMPTY: { applicationCode: 17, message: 'The destination is empty' },
  OBJECT_NOT_FOUND: { applicationCode: 29, message: 'Object not found' },
  WALLET_NOT_FOUND: { applicationCode: 30, message: 'Requested wallet not found' },
  CHANGE_ADDRESS_REQUIRED: { applicationCode: 31, message: 'Change address required' },
  CHANGE_ADDRESS_NOT_FOUND: { applicationCode: 32, message: 'Change address not found' },
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
  readonly sourceAddresses?: readonly string[];
  /** 64 hex; exclusive with an integrated destination address. */
  readonly paymentId?: string;
  /** Raw hex added to the transaction extra (the payout batch id goes here). */
  readonly extraHex?: string;
  readonly unlockTime?: number;
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
    return this.read('getStatus', {}, walletStatusSchema);
  }

  /** Without `address`: the aggregate of every wallet address. */
  getBalance(address?: string): Promise<WalletBalance> {
    return this.read('getBalance', address === undefined ? {} : { address }, walletBalanceSchema);
  }

  async getAddresses(): Promise<string[]> {
    return (await this.read('getAddresses', {}, addressesSchema)).addresses;
  }

  async getTransactions(
    range: TransactionRange,
    filter: { addresses?: readonly string[]; paymentId?: string } = {},
  ): Promise<Array<{ blockHash: string; transactions: WalletTransaction[] }>> {
    const params = { ...range, ...filter };
    return (await this.read('getTransactions', params, transactionsSchema)).items;
  }

  async getTransactionHashes(
    range: TransactionRange,
    filter: { addresses?: readonly string[]; paymentId?: string } = {},
  ): Promise<Array<{ blockHash: string; transactionHashes: string[] }>> {
    return (await this.read('getTransactionHashes', { ...range, ...filter }, transactionHashesSchema)).items;
  }

  async getTransaction(transactionHash: string): Promise<WalletTransaction> {
    return (await this.read('getTransaction', { transactionHash }, singleTransactionSchema)).transaction;
  }

  async getUnconfirmedTransactionHashes(): Promise<string[]> {
    return (await this.read('getUnconfirmedTransactionHashes', {}, unconfirmedHashesSchema))
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
    if (request.sourceAddresses) params['sourceAddresses'] = request.sourceAddresses;
    if (request.paymentId !== undefined) params['paymentId'] = request.paymentId;
    if (request.extraHex !== undefined) params['extra'] = request.extraHex;
    if (request.unlockTime !== undefined) params['unlockTime'] = request.unlockTime;
    const result = await callJsonRpc(this.http, this.nextId(), 'sendTransaction', params);
    return validateReply(sendTransactionSchema, result, 'sendTransaction');
  }

  private read<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown>,
    schema: S,
  ): Promise<z.infer<S>> {
    return withRetry(this.retry, async () =>
      validateReply(schema, await callJsonRpc(this.http, this.nextId(), method, params), method),
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
