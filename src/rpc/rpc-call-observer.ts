/** One attempt of a daemon or wallet call, as timed by the client that made it. */
export interface RpcCall {
  /** The JSON-RPC method, or the path of a plain-path call (`/getinfo`). */
  readonly method: string;
  readonly durationMs: number;
  /** The error's code (RPC_TIMEOUT, RPC_ERROR, ...) when the attempt failed. */
  readonly errorCode?: string;
}

export type RpcCallObserver = (call: RpcCall) => void;

export type RpcService = 'daemon' | 'wallet';

export type RpcCallListener = (service: RpcService, call: RpcCall) => void;

/**
 * Hands the calls of the clients built at start to whoever listens later (the API's metrics are
 * built after the clients, and a node without an API has no listener): each client gets its
 * service's observer, listeners come and go.
 */
export class RpcCallFanout {
  readonly #listeners = new Set<RpcCallListener>();

  observerFor(service: RpcService): RpcCallObserver {
    return (call) => this.report(service, call);
  }

  /** A call made elsewhere (a stratum child's client), handed to the listeners as if made here. */
  report(service: RpcService, call: RpcCall): void {
    for (const listener of this.#listeners) listener(service, call);
  }

  /** Returns the function that stops listening. */
  listen(listener: RpcCallListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
