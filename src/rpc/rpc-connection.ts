import { FuegoPoolError } from '../errors.js';
import { type BasicAuth, JsonHttpClient, type JsonHttpOptions, type JsonHttpTls } from './json-http.js';
import type { RetryPolicy } from './retry.js';
import type { RpcCallObserver } from './rpc-call-observer.js';

export interface RpcConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  /** Extra attempts for idempotent reads on transport errors (writes are never retried). */
  readonly retries: number;
  readonly retryBaseDelayMs?: number;
  /** Told of every attempt (method, time taken, error code): the API's RPC latency metrics. */
  readonly observe?: RpcCallObserver;
  /** HTTPS (a TLS proxy in front of a remote fuegod); absent: plain HTTP. */
  readonly tls?: JsonHttpTls;
  /** HTTP Basic credentials for every request (walletd's --rpc-user / --rpc-password). */
  readonly basicAuth?: BasicAuth;
}

/** What the daemon and wallet clients share: one keep-alive HTTP client, the read retry policy, ids. */
export abstract class RpcConnection {
  protected readonly http: JsonHttpClient;
  protected readonly retry: RetryPolicy;
  readonly #observe: RpcCallObserver | undefined;
  #lastId = 0;

  protected constructor(options: RpcConnectionOptions & Pick<JsonHttpOptions, 'resendOnStaleConnection'>) {
    this.http = new JsonHttpClient(options);
    this.retry = {
      retries: options.retries,
      baseDelayMs: options.retryBaseDelayMs ?? 200,
      maxDelayMs: 5_000,
    };
    this.#observe = options.observe;
  }

  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): void {
    this.http.close();
  }

  /** One attempt of `method`, reported to the observer with its time and, if it fails, its error code. */
  protected async timed<T>(method: string, attempt: () => Promise<T>): Promise<T> {
    const observe = this.#observe;
    if (observe === undefined) return attempt();
    const started = performance.now();
    try {
      const answer = await attempt();
      observe({ method, durationMs: performance.now() - started });
      return answer;
    } catch (error) {
      const code = error instanceof FuegoPoolError ? error.code : 'UNKNOWN';
      observe({ method, durationMs: performance.now() - started, errorCode: code });
      throw error;
    }
  }

  protected nextId(): number {
    this.#lastId += 1;
    return this.#lastId;
  }
}
