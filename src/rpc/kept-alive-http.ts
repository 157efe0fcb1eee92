import { connect, type Socket } from 'node:net';
import { type HttpExchange, IDLE_CONNECTION_TIMEOUT_MS, type JsonHttpResponse } from './json-http.js';
import { RpcError } from './rpc-error.js';

export interface KeptAliveHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  /** Answers (head and body) larger than this are refused. */
  readonly maxResponseBytes?: number;
}

interface PendingRequest {
  /** The request's bytes, head and body. */
  readonly request: string;
  readonly path: string;
  readonly deadlineAt: number;
  readonly resolve: (response: JsonHttpResponse) => void;
  readonly reject: (error: RpcError) => void;
  /** Sent again already, on a new connection, after a kept-alive one was closed under it. */
  resent: boolean;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |\r|$)/;

/**
 * Requests over one kept-alive plain-HTTP connection, one at a time, answers read by hand: only a
 * head and a Content-Length body (fuegod's every answer). For the daemon calls made many times a
 * second, the tip check's `/getheight` (40 a second) and the poll's `getlastblockheader` (10):
 * Node's HTTP client takes about twice the CPU per call (`bench:tip-check`: ~0.9 against ~0.4 ms
 * at the tip check's pace, waking up included). Anything else it is given (chunked bodies,
 * unsolicited bytes) fails the call with an RpcError and drops the connection; the next call opens
 * a new one. A request that a kept-alive connection's close cut off is sent again once, POST too:
 * give it only requests that may arrive twice (reads).
 */
export class KeptAliveHttpClient implements HttpExchange {
  readonly #options: KeptAliveHttpOptions;
  readonly #maxBytes: number;
  /** The Host header's value (an IPv6 address in brackets). */
  readonly #hostHeader: string;
  readonly #queue: PendingRequest[] = [];
  #socket: Socket | undefined;
  /** Answers read on the current connection: a connection closed under a later request was a stale one. */
  #answeredOnSocket = 0;
  #inFlight: PendingRequest | undefined;
  /** The answer so far to the request in flight. */
  #received: Buffer | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: KeptAliveHttpOptions) {
    this.#options = options;
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const { host, port } = options;
    this.#hostHeader = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }

  get endpoint(): string {
    return `http://${this.#options.host}:${this.#options.port}`;
  }

  send(method: 'GET' | 'POST', path: string, body?: string): Promise<JsonHttpResponse> {
    if (method === 'GET' && body !== undefined) {
      const message = `${this.endpoint}${path}: a GET has no body`;
      return Promise.reject(new RpcError('RPC_BAD_REQUEST', message, { path, method }));
    }
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.#hostHeader}\r\nAccept: application/json\r\n`;
    const request =
      body === undefined
        ? `${head}\r\n`
        : `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return this.#enqueue(request, path);
  }

  /** The answer to GET `path`, whatever its status; rejects with RpcError on transport failures. */
  get(path: string): Promise<JsonHttpResponse> {
    return this.send('GET', path);
  }

  #enqueue(request: string, path: string): Promise<JsonHttpResponse> {
    if (this.#closed) return Promise.reject(this.#unreachable(path, 'ECLOSED', 'client closed'));
    return new Promise((resolve, reject) => {
      const deadlineAt = performance.now() + this.#options.timeoutMs;
      this.#queue.push({ request, path, deadlineAt, resolve, reject, resent: false });
      if (this.#inFlight === undefined) this.#next();
    });
  }

  /** Ends the connection; calls waiting or in flight fail with RPC_UNREACHABLE. */
  close(): void {
    this.#closed = true;
    this.#dropSocket();
    // A copy: between an answer and the next request's start the queue may hold calls with none in flight.
    const waiting = this.#inFlight === undefined ? [...this.#queue] : [this.#inFlight, ...this.#queue];
    this.#queue.length = 0;
    this.#inFlight = undefined;
    this.#clearDeadline();
    for (const pending of waiting)
      pending.reject(this.#unreachable(pending.path, 'ECLOSED', 'client closed'));
  }

  #next(): void {
    const pending = this.#queue.shift();
    this.#inFlight = pending;
    if (pending === undefined) {
      this.#socket?.unref();
      return;
    }
    const waitMs = Math.max(0, pending.deadlineAt - performance.now());
    this.#deadline = setTimeout(this.#onDeadline, waitMs);
    this.#write(pending);
  }

  #write(pending: PendingRequest): void {
    this.#received = undefined;
    const socket = this.#socket ?? this.#connect();
    socket.ref();
    socket.write(pending.request);
  }

  #connect(): Socket {
    const socket = connect({ host: this.#options.host, port: this.#options.port, noDelay: true });
    this.#socket = socket;
    this.#answeredOnSocket = 0;
    socket.setTimeout(IDLE_CONNECTION_TIMEOUT_MS); // as JsonHttpClient: closed before a server would
    socket.on('timeout', () => {
      if (this.#socket === socket && this.#inFlight === undefined) this.#dropSocket();
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket === socket) this.#onData(chunk);
    });
    const onGone = (error?: NodeJS.ErrnoException) => {
      if (this.#socket === socket) this.#onSocketGone(error);
    };
    socket.on('error', onGone);
    socket.on('close', () => onGone());
    return socket;
  }

  #onData(chunk: Buffer): void {
    const pending = this.#inFlight;
    if (pending === undefined) {
      this.#dropSocket(); // bytes nobody asked for: the connection is out of step
      return;
    }
    const received = this.#received === undefined ? chunk : Buffer.concat([this.#received, chunk]);
    this.#received = received;
    if (received.length > this.#maxBytes) {
      this.#fail(this.#badResponse(pending.path, `answer larger than ${this.#maxBytes} bytes`));
      return;
    }
    const headEnd = received.indexOf(HEAD_END);
    if (headEnd === -1) return;
    const head = readHead(received.toString('latin1', 0, headEnd));
    if ('problem' in head) {
      this.#fail(this.#badResponse(pending.path, head.problem, head.otherFraming));
      return;
    }
    const bodyStart = headEnd + HEAD_END.length;
    const end = bodyStart + head.contentLength;
    if (end > this.#maxBytes) {
      this.#fail(this.#badResponse(pending.path, `answer larger than ${this.#maxBytes} bytes`));
      return;
    }
    if (received.length < end) return;
    if (received.length > end) {
      this.#fail(this.#badResponse(pending.path, 'more bytes than its Content-Length'));
      return;
    }
    this.#answeredOnSocket++;
    if (!head.keepAlive) this.#dropSocket();
    this.#settle().resolve({ status: head.status, body: received.toString('utf8', bodyStart, end) });
  }

  /** The connection closed or failed; the call in flight is sent again once if it was a stale kept-alive one. */
  #onSocketGone(error: NodeJS.ErrnoException | undefined): void {
    const reused = this.#answeredOnSocket > 0;
    const answering = this.#received !== undefined;
    this.#dropSocket();
    const pending = this.#inFlight;
    if (pending === undefined) return;
    if (reused && !answering && !pending.resent) {
      pending.resent = true;
      this.#write(pending);
      return;
    }
    const code = error?.code ?? 'ECONNRESET';
    this.#fail(
      this.#unreachable(pending.path, code, error?.message ?? 'connection closed before a full answer'),
    );
  }

  readonly #onDeadline = (): void => {
    const pending = this.#inFlight;
    if (pending === undefined) return;
    const message = `${this.endpoint}${pending.path}: no complete answer within ${this.#options.timeoutMs} ms`;
    this.#fail(
      new RpcError('RPC_TIMEOUT', message, { path: pending.path, timeoutMs: this.#options.timeoutMs }),
    );
  };

  /** Fails the call in flight; its connection can no longer be trusted to be in step. */
  #fail(error: RpcError): void {
    this.#dropSocket();
    this.#settle().reject(error);
  }

  /** Takes the call in flight off, starts the next one (after the caller's outcome is queued). */
  #settle(): PendingRequest {
    const pending = this.#inFlight as PendingRequest;
    this.#clearDeadline();
    this.#received = undefined;
    this.#inFlight = undefined;
    // A call made meanwhile may have started already (#enqueue found none in flight).
    queueMicrotask(() => {
      if (this.#inFlight === undefined) this.#next();
    });
    return pending;
  }

  #clearDeadline(): void {
    if (this.#deadline !== undefined) clearTimeout(this.#deadline);
    this.#deadline = undefined;
  }

  #dropSocket(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.destroy();
  }

  #unreachable(path: string, errno: string, detail: string): RpcError {
    return new RpcError('RPC_UNREACHABLE', `${this.endpoint}${path}: ${errno} (${detail})`, { path, errno });
  }

  /** `otherFraming`: a body this client does not read, but another HTTP client would (unreadableFraming). */
  #badResponse(path: string, reason: string, otherFraming = false): RpcError {
    const data = otherFraming ? { path, otherFraming } : { path };
    return new RpcError('RPC_BAD_RESPONSE', `${this.endpoint}${path}: ${reason}`, data);
  }
}

/**
 * Whether `error` is this client's refusal of a body framed otherwise than by Content-Length
 * (chunked, or up to the close): well-formed HTTP, which a complete client reads.
 */
export function unreadableFraming(error: unknown): boolean {
  return (
    error instanceof RpcError && error.code === 'RPC_BAD_RESPONSE' && error.data['otherFraming'] === true
  );
}

interface ResponseHead {
  readonly status: number;
  readonly contentLength: number;
  readonly keepAlive: boolean;
}

/** A head this client does not read, and whether another HTTP client would (unreadableFraming). */
interface HeadProblem {
  readonly problem: string;
  readonly otherFraming: boolean;
}

/** The status line and the headers that matter, or why the head is not one this client reads. */
function readHead(head: string): ResponseHead | HeadProblem {
  const statusLine = STATUS_LINE.exec(head);
  if (statusLine === null) return { problem: 'not an HTTP/1.x answer', otherFraming: false };
  let contentLength: number | undefined;
  let connection = '';
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon === -1) return { problem: `malformed header line "${line.slice(0, 40)}"`, otherFraming: false };
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'transfer-encoding') {
      const problem = `Transfer-Encoding "${value.slice(0, 40)}" (only Content-Length bodies are read)`;
      return { problem, otherFraming: true };
    }
    if (name === 'connection') connection = value.toLowerCase();
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value) || (contentLength !== undefined && contentLength !== Number(value))) {
        return { problem: `bad Content-Length "${value.slice(0, 40)}"`, otherFraming: false };
      }
      contentLength = Number(value);
    }
  }
  if (contentLength === undefined) return { problem: 'no Content-Length', otherFraming: true };
  const options = connection.split(',').map((token) => token.trim());
  const keepAlive = statusLine[1] === '1' ? !options.includes('close') : options.includes('keep-alive');
  return { status: Number(statusLine[2]), contentLength, keepAlive };
}
