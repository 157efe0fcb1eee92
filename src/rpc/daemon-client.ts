import { z } from 'zod';
import {
  type AliasLookup,
  aliasSchema,
  type BlockHeader,
  type BlockTemplateResponse,
  blockCountSchema,
  blockHeaderResultSchema,
  blocksListSchema,
  blockTemplateSchema,
  currencyIdSchema,
  type DaemonInfo,
  daemonInfoSchema,
  depositsSchema,
  type FeePoolInfo,
  feeAddressSchema,
  feePoolInfoSchema,
  type HeatDeposit,
  heightSchema,
  type ListedBlock,
  poolTransactionsSchema,
  statusSchema,
  transactionBlockSchema,
} from './daemon-schemas.js';
import type { HttpExchange, JsonHttpResponse } from './json-http.js';
import { callJsonRpc, parseJson, validateReply } from './json-rpc.js';
import { KeptAliveHttpClient, unreadableFraming } from './kept-alive-http.js';
import { withRetry } from './retry.js';
import { RpcConnection, type RpcConnectionOptions } from './rpc-connection.js';
import { RpcError } from './rpc-error.js';
import { transactionFeeAtomic } from './transaction-fee.js';

const blockHashSchema = z.string().regex(/^[0-9a-f]{64}$/);

export type DaemonClientOptions = RpcConnectionOptions;

/** The block a transaction is in, and the fee it paid when its body tells (transaction-fee.ts). */
export interface TransactionBlock {
  readonly height: number;
  readonly hash: string;
  readonly feeAtomic: bigint | null;
}

/** JSON-RPC error codes of fuegod 1.9.3 (shared/spec/fuego-daemon-behaviour.md). */
export const DaemonRpcCode = {
  WRONG_PARAM: -1,
  TOO_BIG_HEIGHT: -2,
  TOO_BIG_RESERVE_SIZE: -3,
  WRONG_WALLET_ADDRESS: -4,
  INTERNAL: -5,
  WRONG_BLOCKBLOB: -6,
  BLOCK_NOT_ACCEPTED: -7,
  CORE_BUSY: -9,
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_JSON: -32603,
} as const;

/**
 * Typed client for fuegod. Knows the real daemon's quirks: `params` is always sent (omitting it
 * is error -32603 even for methods without parameters), the block-hash method is
 * `on_getblockhash`, and a 404 on the alias / fee-pool / HEAT paths means "this daemon version
 * does not have them" (RPC_NOT_SUPPORTED), not an outage.
 */
export class DaemonClient extends RpcConnection {
  /**
   * The own kept-alive connection, read by hand (kept-alive-http.ts), of the calls made many times
   * a second: the tip check's getHeight (40) and the poll's getLastBlockHeader (10). Only to a
   * plain-HTTP daemon without credentials, and only for reads (a call cut off by a kept-alive
   * connection's close is sent again). Dropped for good, and the client of every other call used
   * instead, once it meets a body framed otherwise than by Content-Length (a proxy's chunked
   * answer, say); any other bad answer fails the call as it would there.
   */
  #tipClient: KeptAliveHttpClient | undefined;
  readonly #tipExchange: HttpExchange = {
    send: (method, path, body) => this.#sendOverTipClient(method, path, body),
  };

  constructor(options: DaemonClientOptions) {
    // Every call may arrive twice: a reset kept-alive connection costs no submitblock.
    super({ ...options, resendOnStaleConnection: true });
    if (options.tls === undefined && options.basicAuth === undefined) {
      this.#tipClient = new KeptAliveHttpClient(options);
    }
  }

  override close(): void {
    super.close();
    this.#tipClient?.close();
  }

  /** Returns the info even while `status` is "BUSY" (core starting): callers wait on it. */
  getInfo(): Promise<DaemonInfo> {
    return this.#read(() =>
      this.#path('GET', '/getinfo', undefined, daemonInfoSchema, { acceptAnyStatus: true }),
    );
  }

  async getHeight(): Promise<number> {
    const answer = await this.#read(() =>
      this.#path('GET', '/getheight', undefined, heightSchema, {}, this.#tipExchange),
    );
    return answer.height;
  }

  async getBlockCount(): Promise<number> {
    return (await this.#read(() => this.#rpc('getblockcount', {}, blockCountSchema))).count;
  }

  async getLastBlockHeader(): Promise<BlockHeader> {
    return (
      await this.#read(() => this.#rpc('getlastblockheader', {}, blockHeaderResultSchema, this.#tipExchange))
    ).block_header;
  }

  /** Heights >= the chain height fail with rpcCode -2 ("To big height"). */
  async getBlockHeaderByHeight(height: number): Promise<BlockHeader> {
    return (await this.#read(() => this.#rpc('getblockheaderbyheight', { height }, blockHeaderResultSchema)))
      .block_header;
  }

  async getBlockHeaderByHash(hash: string): Promise<BlockHeader> {
    return (await this.#read(() => this.#rpc('getblockheaderbyhash', { hash }, blockHeaderResultSchema)))
      .block_header;
  }

  /**
   * `f_blocks_list_json`: the main chain's blocks at `height` and below, highest first, in one call
   * (fuegod 1.9.3 lists about 30; the count is the daemon's, so callers use what comes back).
   * Heights >= the chain height fail with rpcCode -2, as getblockheaderbyheight.
   */
  async getBlocksList(height: number): Promise<ListedBlock[]> {
    return (await this.#read(() => this.#rpc('f_blocks_list_json', { height }, blocksListSchema))).blocks;
  }

  /** `on_getblockhash` answers with the bare hash string. */
  async getBlockHash(height: number): Promise<string> {
    return this.#read(() => this.#rpc('on_getblockhash', [height], blockHashSchema));
  }

  async getCurrencyId(): Promise<string> {
    return (await this.#read(() => this.#rpc('getcurrencyid', {}, currencyIdSchema))).currency_id_blob;
  }

  /**
   * The block a transaction is in (f_transaction_json), or null when the daemon has it in no block
   * of its chain: fuegod 1.9.3 answers -1 "transaction wasn't found" for a hash it does not know
   * and for one only in its pool alike (captures 65 and 72), so null says nothing about the pool.
   * With it the fee the transaction paid (transactionFeeAtomic), or null when its body cannot tell.
   */
  async findTransactionBlock(hash: string): Promise<TransactionBlock | null> {
    let found: z.infer<typeof transactionBlockSchema>;
    try {
      found = await this.#read(() => this.#rpc('f_transaction_json', { hash }, transactionBlockSchema));
    } catch (error) {
      if (
        error instanceof RpcError &&
        error.rpcCode === DaemonRpcCode.WRONG_PARAM &&
        String(error.data['rpcMessage']).startsWith("transaction wasn't found")
      ) {
        return null;
      }
      throw error;
    }
    const { height, hash: blockHash } = found.block;
    return { height, hash: blockHash, feeAtomic: transactionFeeAtomic(found.tx) };
  }

  /** Hashes of the transactions in the daemon's pool (f_on_transactions_pool_json). */
  async getPoolTransactionHashes(): Promise<string[]> {
    const pool = await this.#read(() => this.#rpc('f_on_transactions_pool_json', {}, poolTransactionsSchema));
    return pool.transactions.map((tx) => tx.hash);
  }

  /** `walletAddress` must be a standard address: the daemon rejects integrated ones (-4). */
  getBlockTemplate(params: { reserveSize: number; walletAddress: string }): Promise<BlockTemplateResponse> {
    return this.#read(() =>
      this.#rpc(
        'getblocktemplate',
        { reserve_size: params.reserveSize, wallet_address: params.walletAddress },
        blockTemplateSchema,
      ),
    );
  }

  /**
   * Submits a solved block. Not retried: a lost answer followed by a resend would read as
   * "Block not accepted" (duplicate), so the caller checks the chain instead.
   */
  async submitBlock(blockHex: string): Promise<void> {
    await this.#rpc('submitblock', [blockHex], statusSchema);
  }

  async getFeeAddress(): Promise<string> {
    return (await this.#read(() => this.#path('GET', '/feeaddress', undefined, feeAddressSchema)))
      .fee_address;
  }

  /** Optional endpoint; throws RPC_NOT_SUPPORTED on a daemon without it. Leading `@` is optional. */
  getAlias(alias: string): Promise<AliasLookup> {
    return this.#read(() =>
      this.#path('POST', '/get_alias', JSON.stringify({ alias }), aliasSchema, { optional: true }),
    );
  }

  /** Optional endpoint: the alias registered for an address (`found: false` when none). */
  getAliasByAddress(address: string): Promise<AliasLookup> {
    return this.#read(() =>
      this.#path('POST', '/get_alias_by_address', JSON.stringify({ address }), aliasSchema, {
        optional: true,
      }),
    );
  }

  /** Optional endpoint; throws RPC_NOT_SUPPORTED on a daemon without it. */
  getFeePoolInfo(): Promise<FeePoolInfo> {
    return this.#read(() =>
      this.#path('GET', '/get_fee_pool_info', undefined, feePoolInfoSchema, { optional: true }),
    );
  }

  /** Optional endpoint (HEAT CDs); throws RPC_NOT_SUPPORTED on a daemon without it. */
  async getDeposits(): Promise<HeatDeposit[]> {
    return (
      await this.#read(() => this.#path('GET', '/getdeposits', undefined, depositsSchema, { optional: true }))
    ).deposits;
  }

  async #sendOverTipClient(method: 'GET' | 'POST', path: string, body?: string): Promise<JsonHttpResponse> {
    const own = this.#tipClient;
    if (own === undefined) return this.http.send(method, path, body);
    try {
      return await own.send(method, path, body);
    } catch (error) {
      if (!unreadableFraming(error) || this.#tipClient !== own) throw error;
      this.#tipClient = undefined;
      own.close();
      return this.http.send(method, path, body);
    }
  }

  #read<T>(attempt: () => Promise<T>): Promise<T> {
    return withRetry(this.retry, attempt);
  }

  async #path<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    schema: S,
    flags: { optional?: boolean; acceptAnyStatus?: boolean } = {},
    exchange: HttpExchange = this.http,
  ): Promise<z.infer<S>> {
    return this.timed(path, async () =>
      this.#pathReply(path, await exchange.send(method, path, body), schema, flags),
    );
  }

  #pathReply<S extends z.ZodType>(
    path: string,
    response: JsonHttpResponse,
    schema: S,
    flags: { optional?: boolean; acceptAnyStatus?: boolean },
  ): z.infer<S> {
    if (response.status === 404 && flags.optional) {
      throw new RpcError('RPC_NOT_SUPPORTED', `${path} is not served by this daemon`, { path });
    }
    if (response.status !== 200) {
      throw new RpcError('RPC_HTTP_STATUS', `${path}: HTTP ${response.status}`, {
        path,
        status: response.status,
      });
    }
    const json = parseJson(response.body, path);
    const status = (json as { status?: unknown } | null)?.status;
    if (typeof status === 'string' && status !== 'OK' && !flags.acceptAnyStatus) {
      throw new RpcError('RPC_STATUS', `${path}: daemon status "${status}"`, { path, status });
    }
    return validateReply(schema, json, path);
  }

  async #rpc<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown> | unknown[],
    schema: S,
    exchange: HttpExchange = this.http,
  ): Promise<z.infer<S>> {
    return this.timed(method, async () =>
      this.#rpcReply(method, await callJsonRpc(exchange, String(this.nextId()), method, params), schema),
    );
  }

  #rpcReply<S extends z.ZodType>(method: string, reply: unknown, schema: S): z.infer<S> {
    const result = reply as { status?: unknown } | null;
    if (result && typeof result === 'object' && typeof result.status === 'string' && result.status !== 'OK') {
      throw new RpcError('RPC_STATUS', `${method}: daemon status "${result.status}"`, {
        method,
        status: result.status,
      });
    }
    return validateReply(schema, result, method);
  }
}
