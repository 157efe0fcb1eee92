import { JsonHttpClient, type JsonHttpOptions } from './json-http.js';
import type { RetryPolicy } from './retry.js';

export interface RpcConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  /** Extra attempts for idempotent reads on transport errors (writes are never retried). */
  readonly retries: number;
  readonly retryBaseDelayMs?: number;
}

/** What the daemon and wallet clients share: one keep-alive HTTP client, the read retry policy, ids. */
export abstract class RpcConnection {
  protected readonly http: JsonHttpClient;
  protected readonly retry: RetryPolicy;
  #lastId = 0;

  protected constructor(options: RpcConnectionOptions & Pick<JsonHttpOptions, 'resendOnStaleConnection'>) {
    this.http = new JsonHttpClient(options);
    this.retry = {
      retries: options.retries,
      baseDelayMs: options.retryBaseDelayMs ?? 200,
      maxDelayMs: 5_000,
    };
  }

  get endpoint(): string {
    return this.http.endpoint;
  }

  close(): void {
    this.http.close();
  }

  protected nextId(): number {
    this.#lastId += 1;
    return this.#lastId;
  }
}
