import { FuegoPoolError } from '../errors.js';

export type RpcErrorCode =
  /** No answer within the timeout. */
  | 'RPC_TIMEOUT'
  /** Connection refused/reset: the service is down or restarting. */
  | 'RPC_UNREACHABLE'
  /** HTTP status other than 200 (404 on an optional endpoint is RPC_NOT_SUPPORTED instead). */
  | 'RPC_HTTP_STATUS'
  /**
   * HTTP 401: the server wants other credentials (walletd started with --rpc-user/--rpc-password).
   * Not transient: the same request fails the same way until the configuration changes.
   */
  | 'RPC_UNAUTHORIZED'
  /** The endpoint does not exist on this daemon version (the real 1.9.3 lacks alias/fee-pool/HEAT). */
  | 'RPC_NOT_SUPPORTED'
  /** Not JSON, or JSON of the wrong shape (e.g. an HTML error page from a proxy). */
  | 'RPC_BAD_RESPONSE'
  /** A JSON-RPC error object; `data.rpcCode` and `data.rpcMessage` carry it, `data.applicationCode` for walletd. */
  | 'RPC_ERROR'
  /** A plain-path reply whose `status` is not "OK" (e.g. `{"status":"Failed"}`). */
  | 'RPC_STATUS'
  /** The request itself cannot be sent (e.g. an amount that does not fit a JSON number); nothing went out. */
  | 'RPC_BAD_REQUEST';

export class RpcError extends FuegoPoolError<RpcErrorCode> {
  /** The JSON-RPC error code, when the service answered with one. */
  get rpcCode(): number | undefined {
    const code = this.data['rpcCode'];
    return typeof code === 'number' ? code : undefined;
  }

  /** Transport failures are worth retrying; answers (even errors) are not. */
  get isTransient(): boolean {
    return this.code === 'RPC_TIMEOUT' || this.code === 'RPC_UNREACHABLE' || this.code === 'RPC_HTTP_STATUS';
  }
}
