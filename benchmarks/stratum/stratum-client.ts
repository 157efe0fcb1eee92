import { connect, type Socket } from 'node:net';
import { plainSocketFd } from '../../src/servers/stratum/socket-write-batch.js';

/** A job as the pool sends it (login result and `job` notifications). */
export interface WireJob {
  readonly blob: string;
  readonly job_id: string;
  readonly target: string;
  readonly height: number;
}

export interface StratumReply {
  readonly id: number;
  readonly error: { readonly code: number; readonly message: string } | null;
  readonly result: unknown;
}

/** A `job` notification, as received: parse it later, so the timestamp is not skewed by parsing. */
export interface ReceivedNotification {
  /** performance.timeOrigin + performance.now() when the chunk holding it was read. */
  readonly atMs: number;
  readonly line: string;
}

export type LoginOutcome =
  | { readonly ok: true; readonly sessionId: string; readonly job: WireJob }
  | { readonly ok: false; readonly message: string };

/** One read buffer for every client socket: `onread` callbacks run one at a time and copy out. */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

/** Wall-clock milliseconds with sub-millisecond resolution (comparable with pino's `time`). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A minimal simulated miner: one socket, newline-delimited JSON, replies matched by numeric id.
 * It does no hashing; the benchmarks hand it pre-computed submits.
 */
export class StratumClient {
  sessionId: string | undefined;
  /** Called for every `job` notification; none is kept otherwise. */
  onJob: ((notification: ReceivedNotification) => void) | undefined;
  #buffer = '';
  #nextId = 1;
  readonly #pending = new Map<number, (reply: StratumReply) => void>();
  #closed = false;
  #outgoing = '';
  #flushScheduled = false;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => {
      this.#closed = true;
      const error = { code: -1, message: 'connection closed' };
      for (const [id, resolve] of this.#pending) resolve({ id, error, result: null });
      this.#pending.clear();
    });
  }

  /**
   * Connects with Node's `onread` reading: every socket reads into one shared buffer and no stream
   * machinery runs per chunk. The benchmark's thousands of client sockets share two cores with the
   * pool, so what the client saves per message is CPU the pool gets back. A connect not made
   * within `timeoutMs` (when given) is given up: a peer the kernel drops hears nothing back, and
   * without it the connect would wait for the kernel's SYN retries, about two minutes.
   */
  static connect(port: number, localAddress?: string, timeoutMs?: number): Promise<StratumClient> {
    return new Promise((resolve, reject) => {
      let client: StratumClient | undefined;
      const socket = connect({
        port,
        host: '127.0.0.1',
        ...(localAddress ? { localAddress } : {}),
        onread: {
          buffer: SHARED_READ_BUFFER,
          callback: (bytes: number) => {
            // The pool writes ASCII only: latin1 decodes it exactly, and no character spans chunks.
            if (client) client.#onData(SHARED_READ_BUFFER.toString('latin1', 0, bytes));
            return true;
          },
        },
      });
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              socket.destroy();
              reject(new Error(`connect timed out after ${timeoutMs} ms`));
            }, timeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        client = new StratumClient(socket);
        resolve(client);
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Requests waiting for their reply. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Sends `{"id":N,"method":...,"params":...}` and resolves with the reply (or a closed error). */
  request(method: string, params: object): Promise<StratumReply> {
    const id = this.#nextId++;
    return this.sendRaw(
      id,
      `{"id":${id},"jsonrpc":"2.0","method":"${method}","params":${JSON.stringify(params)}}\n`,
    );
  }

  /** A fresh request id, for lines built ahead of time (see `sendRaw`). */
  takeId(): number {
    return this.#nextId++;
  }

  /** Writes a line prepared ahead of time whose id is `id` (from `takeId`). */
  sendRaw(id: number, line: string): Promise<StratumReply> {
    return new Promise((resolve) => {
      if (this.#closed) {
        resolve({ id, error: { code: -1, message: 'connection closed' }, result: null });
        return;
      }
      this.#pending.set(id, resolve);
      this.#queueWrite(line);
    });
  }

  /**
   * Lines written in one event-loop turn leave in one write (in the check phase, after every reply
   * read in this turn has been handled), as a multi-threaded miner's or a proxy's would.
   */
  #queueWrite(line: string): void {
    this.#outgoing += line;
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      const text = this.#outgoing;
      this.#outgoing = '';
      if (!this.#closed && text.length > 0) this.socket.write(text);
    });
  }

  async login(login: string): Promise<LoginOutcome> {
    const reply = await this.request('login', {
      login,
      pass: 'x',
      // Its shares keep a reserved top nonce byte as XMRig 6 does (difficulty-one-share.ts).
      agent: 'XMRig/6.16.0 (fuego-pool-bench)',
      algo: ['cn/upx2'],
    });
    if (reply.error) return { ok: false, message: reply.error.message };
    const result = reply.result as { id: string; job: WireJob };
    this.sessionId = result.id;
    return { ok: true, sessionId: result.id, job: result.job };
  }

  destroy(): void {
    this.socket.destroy();
  }

  /**
   * Stops Node's reading of this socket and gives its descriptor to a reader of its own
   * (native-job-reader.ts), or undefined, and Node reads on: a TLS or closed socket has none to
   * give, and a half-read line or a request awaiting its reply would be lost.
   */
  handOverReading(): number | undefined {
    if (this.#buffer !== '' || this.#pending.size > 0 || this.#closed) return undefined;
    const fd = plainSocketFd(this.socket);
    if (fd === undefined) return undefined;
    this.socket.pause();
    return fd;
  }

  #onData(chunk: string): void {
    const atMs = nowMs();
    const text = this.#buffer + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      start = end + 1;
      // Notifications carry no id and start with {"jsonrpc"; replies start with {"id".
      if (line.startsWith('{"jsonrpc"')) {
        this.onJob?.({ atMs, line });
        continue;
      }
      const reply = JSON.parse(line) as StratumReply;
      const resolve = this.#pending.get(reply.id);
      if (resolve) {
        this.#pending.delete(reply.id);
        resolve(reply);
      }
    }
    this.#buffer = text.slice(start);
  }
}
