import { RpcError } from '../../rpc/rpc-error.js';
import { type WalletErrorKind, walletErrorKind } from '../../rpc/wallet-client.js';

/**
 * What a failed sendTransaction says about the money:
 * - 'not-sent': walletd refused before building the transaction (or the request never reached
 *   it), so the batch can be rolled back at once;
 * - 'unknown': the transaction may have been broadcast (timeout, dropped connection, an internal
 *   error, anything unrecognised). Only the wallet's records can tell: never resend.
 * `repeats`: a refusal the wallet will give again for any batch until its outputs change (it
 * cannot find decoy outputs on a young chain, or the inputs do not fit a transaction): the runner
 * pauses new batches instead of trying one every pass, and consolidates the wallet's outputs.
 * `notReady`: a refusal the wallet gives every batch until its daemon is synchronized with its
 * peers (41): the pass stops, as when the wallet lags, and the next pass tries again. No backoff:
 * a syncing daemon catches up by itself, and nothing about the wallet's outputs needs upkeep.
 */
export type SendOutcome = {
  readonly kind: 'not-sent' | 'unknown';
  readonly reason: string;
  readonly repeats: boolean;
  readonly notReady: boolean;
};

/**
 * walletd checks these before it builds or relays anything (WalletService::sendTransaction:
 * address validation, then WalletGreen::transfer's parameter checks and input selection).
 * INTERNAL_ERROR (5) is deliberately absent: it is also what a failure after relaying looks like.
 */
const REFUSED_BEFORE_BROADCAST: ReadonlySet<WalletErrorKind> = new Set<WalletErrorKind>([
  'INVALID_ADDRESS',
  'INSUFFICIENT_FUNDS',
  'DESTINATION_EMPTY',
  'MIXIN_TOO_BIG',
  'WALLET_NOT_FOUND',
  'CHANGE_ADDRESS_REQUIRED',
  'CHANGE_ADDRESS_NOT_FOUND',
  'TRANSACTION_TOO_BIG',
  // walletd checks its daemon is less than 2 blocks behind its peers before anything else.
  'DAEMON_NOT_SYNCED',
  // The daemon answered "not OK" to the relay: walletd keeps the record as FAILED.
  'NODE_REFUSED',
]);

/**
 * Refusals about the wallet's outputs rather than this batch: they repeat for every batch until
 * the outputs change (the chain grows decoys, or the wallet's upkeep joins its small outputs).
 */
const REPEATING_REFUSALS: ReadonlySet<WalletErrorKind> = new Set<WalletErrorKind>([
  'MIXIN_TOO_BIG',
  'TRANSACTION_TOO_BIG',
]);

/** JSON-RPC envelope errors: the request was rejected before any method ran. */
const ENVELOPE_ERRORS: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602]);

export function classifySendError(error: unknown): SendOutcome {
  const reason = error instanceof Error ? error.message : String(error);
  const notSent = { kind: 'not-sent', reason, repeats: false, notReady: false } as const;
  const unknown = { kind: 'unknown', reason, repeats: false, notReady: false } as const;
  if (!(error instanceof RpcError)) return unknown;
  const known = walletErrorKind(error);
  if (known !== undefined && REFUSED_BEFORE_BROADCAST.has(known)) {
    return { ...notSent, repeats: REPEATING_REFUSALS.has(known), notReady: known === 'DAEMON_NOT_SYNCED' };
  }
  if (error.code === 'RPC_ERROR' && error.rpcCode !== undefined && ENVELOPE_ERRORS.has(error.rpcCode)) {
    return notSent;
  }
  // Built locally and refused before any byte was sent (e.g. an amount too large for JSON).
  if (error.code === 'RPC_BAD_REQUEST') return notSent;
  // walletd checks the credentials before it reads the request (Fuego's HttpServer::authenticate).
  if (error.code === 'RPC_UNAUTHORIZED') return notSent;
  // Connection refused: nothing reached the wallet. A reset or hang-up after sending is 'unknown'.
  if (error.code === 'RPC_UNREACHABLE' && error.data['errno'] === 'ECONNREFUSED') return notSent;
  return unknown;
}
