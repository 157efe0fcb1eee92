import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PinnedHttpsAgent } from './pinned-https-agent.js';
import { RpcError } from './rpc-error.js';

/**
 * HTTPS instead of HTTP. `fingerprint256` (lowercase hex, no colons) pins the server's certificate
 * (self-signed is fine; no CA or name check; see PinnedHttpsAgent); otherwise `ca` (PEM) or the
 * system's CAs must have signed a certificate that names the host. Either way a connection that
 * fails the check is closed before any request is written to it.
 */
export interface JsonHttpTls {
  readonly fingerprint256?: string;
  readonly ca?: string;
}

export interface JsonHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  /** Replies larger than this are refused: a daemon never sends megabytes to these calls. */
  readonly maxResponseBytes?: number;
  /**
   * Send a request again, once, on a new connection when the kept-alive one it went out on was
   * reset before any answer (the server closed it as the request left). Only for a server whose
   * every call may safely arrive twice (fuegod: reads, and a block submitted twice is "already
   * have"); never for walletd, whose sendTransaction must not.
   */
  readonly resendOnStaleConnection?: boolean;
  readonly tls?: JsonHttpTls;
  /** Sent as HTTP Basic credentials with every request (walletd's --rpc-user / --rpc-password). */
  readonly basicAuth?: BasicAuth;
}

export interface BasicAuth {
  readonly user: string;
  readonly password: string;
}

/** Errors of a kept-alive connection the server closed as the request went out. */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

export interface JsonHttpResponse {
  readonly status: number;
  readonly body: string;
}

/** One request and its answer, whatever its status; transport failures reject with RpcError. */
export interface HttpExchange {
  send(method: 'GET' | 'POST', path: string, body?: string): Promise<JsonHttpResponse>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * How long a kept-alive connection may sit idle before the client closes it. Without a limit Node
 * keeps it until the server closes it, and a request sent as the server does (both due in one
 * busy event-loop turn, or crossing on the wire) fails with ECONNRESET: a submitblock then ends
 * as 'error', to be resubmitted by hand. So the client closes first: after this, or a second
 * before the `Keep-Alive: timeout=` a server announces (the devnet: 5 s). A request in flight is
 * not affected (its deadline is timeoutMs).
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 2_000;

/**
 * Minimal HTTP/1.1 client for the daemon and wallet: keep-alive, a hard deadline per request
 * and a response size cap. Maps transport failures to RpcError codes; never parses JSON itself.
 */
export class JsonHttpClient implements HttpExchange {
  readonly #agent: Agent;
  readonly #request: typeof request;
  readonly #options: JsonHttpOptions;
  /** The Authorization header's value, computed once; undefined without credentials. */
  readonly #authorization: string | undefined;

  constructor(options: JsonHttpOptions) {
    this.#options = options;
    const { basicAuth } = options;
    this.#authorization =
      basicAuth === undefined
        ? undefined
        : `Basic ${Buffer.from(`${basicAuth.user}:${basicAuth.password}`, 'utf8').toString('base64')}`;
    const agentOptions = { keepAlive: true, maxSockets: 16, timeout: IDLE_CONNECTION_TIMEOUT_MS };
    const { tls } = options;
    if (tls === undefined) {
      this.#agent = new Agent(agentOptions);
      this.#request = request;
      return;
    }
    this.#agent =
      tls.fingerprint256 !== undefined
        ? new PinnedHttpsAgent(tls.fingerprint256, agentOptions)
        : new HttpsAgent({ ...agentOptions, ...(tls.ca !== undefined ? { ca: tls.ca } : {}) });
    this.#request = httpsRequest as typeof request;
  }

  get endpoint(): string {
    const scheme = this.#options.tls === undefined ? 'http' : 'https';
    return `${scheme}://${this.#options.host}:${this.#options.port}`;
  }

  send(method: 'GET' | 'POST', path: string, body?: string): Promise<JsonHttpResponse> {
    const resend = this.#options.resendOnStaleConnection === true;
    return this.#exchange(method, path, body, performance.now() + this.#options.timeoutMs, resend);
  }

  /** One request and its answer, by `deadlineAt` (performance.now() ms) at the latest. */
  #exchange(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    deadlineAt: number,
    resendIfStale: boolean,
  ): Promise<JsonHttpResponse> {
    const { host, port, timeoutMs } = this.#options;
    const maxBytes = this.#options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json' };
      if (this.#authorization !== undefined) headers['authorization'] = this.#authorization;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        outcome();
      };
      const fail = (error: Error) => finish(() => reject(toRpcError(error, path, this.endpoint)));
      let answered = false;
      const req = this.#request({ host, port, path, method, headers, agent: this.#agent }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            const error = new RpcError(
              'RPC_BAD_RESPONSE',
              `${path}: response larger than ${maxBytes} bytes`,
              {
                path,
              },
            );
            req.destroy(error);
            fail(error);
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          finish(() =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          ),
        );
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('response aborted')));
      });
      // One deadline for the whole exchange (connect, request, every byte of the answer): a socket
      // idle timeout alone never fires for a server that drips one byte at a time.
      const deadline = setTimeout(
        () => {
          const message = `${this.endpoint}${path}: no complete answer within ${timeoutMs} ms`;
          const error = new RpcError('RPC_TIMEOUT', message, { path, timeoutMs });
          req.destroy(error);
          fail(error);
        },
        Math.max(0, deadlineAt - performance.now()),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        const stale =
          resendIfStale && req.reusedSocket && !answered && STALE_CONNECTION_ERRORS.has(error.code ?? '');
        if (!stale) return fail(error);
        finish(() => resolve(this.#exchange(method, path, body, deadlineAt, false)));
      });
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function toRpcError(error: Error, path: string, endpoint: string): RpcError {
  if (error instanceof RpcError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return new RpcError(
    'RPC_UNREACHABLE',
    `${endpoint}${path}: ${code} (${error.message})`,
    { path, errno: code },
    {
      cause: error,
    },
  );
}
