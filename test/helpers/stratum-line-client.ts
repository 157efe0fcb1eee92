import { connect, type Socket } from 'node:net';

type Json = Record<string, unknown>;

/**
 * A minimal stratum client for integration tests: newline-delimited JSON-RPC over TCP to
 * 127.0.0.1, one request at a time, replies matched by id.
 */
export class StratumLineClient {
  readonly #lines: Json[] = [];
  #buffer = '';
  #wake: (() => void) | undefined;
  #nextId = 1;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let nl = this.#buffer.indexOf('\n'); nl !== -1; nl = this.#buffer.indexOf('\n')) {
        this.#lines.push(JSON.parse(this.#buffer.slice(0, nl)) as Json);
        this.#buffer = this.#buffer.slice(nl + 1);
      }
      this.#wake?.();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.#wake?.();
    });
  }

  /**
   * Connects; a connection the pool resets at accept (a banned or capped peer) may fail before
   * 'connect' is seen on loopback, and comes back as a client that is already closed.
   */
  static async open(port: number): Promise<StratumLineClient> {
    const socket = connect({ port, host: '127.0.0.1' });
    const client = new StratumLineClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' ? resolve() : reject(error),
      );
    });
    return client;
  }

  /** Sends a request and resolves with its reply (undefined if the pool closed the connection). */
  async request(method: string, params: Json, timeoutMs = 5_000): Promise<Json | undefined> {
    const id = this.#nextId++;
    this.socket.write(`${JSON.stringify({ id, jsonrpc: '2.0', method, params })}\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.#lines.findIndex((line) => line['id'] === id);
      if (at >= 0) return this.#lines.splice(at, 1)[0];
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no reply to ${method} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** Resolves true once the pool has closed the connection (false after timeoutMs). */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}
