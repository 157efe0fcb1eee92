import { canonicalJson, parseJsonOrUndefined } from '../http/canonical-json.js';
import type { HttpOutcome, HttpRequestView } from '../http/rpc-http-server.js';
import { WalletInvalidRequest, WalletRpcError } from './wallet-errors.js';
import type { WalletService } from './wallet-service.js';

/** How a sendTransaction fails after broadcasting (see WalletJsonRpc.failAfterBroadcast). */
export type FailAfterBroadcastMode = 'error' | 'timeout' | 'drop';

const WALLET_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Server', 'Fuego (CryptoNote-based) HTTP server'],
  ['content-type', 'application/json'],
];

/**
 * walletd's HTTP face: only POST/GET `/json_rpc` (anything else is 404 "Requested url is not found"),
 * JSON-RPC 2.0 envelopes with sorted keys, parse errors carrying `"id":null`, application errors as
 * `-32000` + `data.application_code`, bad or missing fields as `-32600 Invalid Request`.
 * Also the fault injection for exactly-once payout tests (`failAfterBroadcast`, `failReadsOfNextSend`).
 */
export class WalletJsonRpc {
  readonly #wallet: WalletService;
  readonly #methods: ReadonlyMap<string, (params: unknown) => unknown>;
  #pendingFaults: { remaining: number; mode: FailAfterBroadcastMode } = { remaining: 0, mode: 'error' };
  /** getTransaction failures armed for the next sent transaction, then per transaction hash. */
  #unreadableNextSend = 0;
  readonly #unreadable = new Map<string, number>();

  constructor(wallet: WalletService) {
    this.#wallet = wallet;
    const w = wallet;
    this.#methods = new Map<string, (params: unknown) => unknown>([
      ['getStatus', () => w.getStatus()],
      ['getAddresses', () => w.getAddresses()],
      ['createAddress', (p) => w.createAddress(p)],
      ['createAddressList', (p) => w.createAddressList(p)],
      ['deleteAddress', (p) => w.deleteAddress(p)],
      ['getSpendKeys', (p) => w.getSpendKeys(p)],
      ['getViewKey', () => w.getViewKey()],
      ['createIntegrated', (p) => w.createIntegrated(p)],
      ['splitIntegrated', (p) => w.splitIntegrated(p)],
      ['getBalance', (p) => w.getBalance(p)],
      ['getBlockHashes', (p) => w.getBlockHashes(p)],
      ['getTransactionHashes', (p) => w.getTransactionHashes(p)],
      ['getTransactions', (p) => w.getTransactions(p)],
      ['getTransaction', (p) => w.getTransaction(p)],
      ['getUnconfirmedTransactionHashes', (p) => w.getUnconfirmedTransactionHashes(p)],
      ['sendTransaction', (p) => w.sendTransaction(p)],
      ['createDelayedTransaction', (p) => w.createDelayedTransaction(p)],
      ['getDelayedTransactionHashes', () => w.getDelayedTransactionHashes()],
      ['sendDelayedTransaction', (p) => w.sendDelayedTransaction(p)],
      ['deleteDelayedTransaction', (p) => w.deleteDelayedTransaction(p)],
      ['createDeposit', (p) => w.createDeposit(p)],
      ['sendDeposit', (p) => w.sendDeposit(p)],
      ['withdrawDeposit', (p) => w.withdrawDeposit(p)],
      ['getDeposit', (p) => w.getDeposit(p)],
      ['estimateFusion', (p) => w.estimateFusion(p)],
      ['sendFusionTransaction', (p) => w.sendFusionTransaction(p)],
      ['save', () => w.noop()],
      ['reset', () => w.noop()],
      ['exportWallet', () => w.noop()],
    ]);
  }

  get wallet(): WalletService {
    return this.#wallet;
  }

  /**
   * The next `count` sendTransaction calls build and broadcast their transaction, then fail:
   * 'error' answers `-32000` / 5 "Internal error occurred", 'timeout' never answers, 'drop' closes
   * the connection. The transaction is in the mempool either way and confirms in the next block.
   */
  failAfterBroadcast(count: number, mode: FailAfterBroadcastMode = 'error'): void {
    this.#pendingFaults = { remaining: count, mode };
  }

  /**
   * The transaction the next successful sendTransaction builds cannot be read: the next `count`
   * getTransaction calls for its hash answer `-32000` / 5 "Internal error occurred" (a wallet busy
   * or restarting right after the send), later ones answer as usual. Other transactions read as usual.
   */
  failReadsOfNextSend(count: number): void {
    this.#unreadableNextSend = count;
  }

  handle(request: HttpRequestView): HttpOutcome {
    if (request.path !== '/json_rpc') {
      return { kind: 'reply', status: 404, body: 'Requested url is not found\n', headers: WALLET_HEADERS };
    }
    const parsed = parseJsonOrUndefined(request.body);
    if (parsed === undefined) return reply({ error: { code: -32700, message: 'Parse error' }, id: null });
    const body = parsed.value;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return reply({ error: { code: -32600, message: 'Invalid Request' }, id: null });
    }
    const fields = body as Record<string, unknown>;
    const id = fields['id'] ?? null;
    const method = fields['method'];
    if (typeof method !== 'string') return reply({ error: { code: -32600, message: 'Invalid Request' }, id });
    const handler = this.#methods.get(method);
    if (!handler) return reply({ error: { code: -32601, message: 'Method not found' }, id });
    // One scan height for the whole request.
    this.#wallet.scan.settle();
    try {
      if (method === 'getTransaction' && this.#takeUnreadable(fields['params'])) {
        return reply({ error: applicationError(5, 'Internal error occurred'), id });
      }
      const result = handler(fields['params']);
      if (method === 'sendTransaction') this.#armUnreadable(result);
      if (method === 'sendTransaction' && this.#pendingFaults.remaining > 0) {
        this.#pendingFaults.remaining -= 1;
        if (this.#pendingFaults.mode === 'timeout') return { kind: 'hang' };
        if (this.#pendingFaults.mode === 'drop') return { kind: 'drop' };
        return reply({ error: applicationError(5, 'Internal error occurred'), id });
      }
      return reply({ id, result });
    } catch (error) {
      if (error instanceof WalletRpcError) {
        return reply({ error: applicationError(error.applicationCode, error.message), id });
      }
      if (error instanceof WalletInvalidRequest)
        return reply({ error: { code: -32600, message: 'Invalid Request' }, id });
      throw error;
    }
  }

  #armUnreadable(result: unknown): void {
    if (this.#unreadableNextSend === 0) return;
    const hash = (result as { transactionHash?: unknown } | null)?.transactionHash;
    if (typeof hash !== 'string') return;
    this.#unreadable.set(hash, this.#unreadableNextSend);
    this.#unreadableNextSend = 0;
  }

  /** True (and one failure used up) when this getTransaction is for an unreadable transaction. */
  #takeUnreadable(params: unknown): boolean {
    const hash = (params as { transactionHash?: unknown } | null)?.transactionHash;
    if (typeof hash !== 'string') return false;
    const remaining = this.#unreadable.get(hash) ?? 0;
    if (remaining === 0) return false;
    if (remaining === 1) this.#unreadable.delete(hash);
    else this.#unreadable.set(hash, remaining - 1);
    return true;
  }
}

function applicationError(code: number, message: string): Record<string, unknown> {
  return { code: -32000, data: { application_code: code }, message };
}

function reply(fields: Record<string, unknown>): HttpOutcome {
  return {
    kind: 'reply',
    status: 200,
    body: canonicalJson({ jsonrpc: '2.0', ...fields }),
    headers: WALLET_HEADERS,
  };
}
