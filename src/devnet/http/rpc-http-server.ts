import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a handler answers: a normal HTTP reply, or a fault the devnet injects on purpose. */
export type HttpOutcome =
  | {
      readonly kind: 'reply';
      readonly status: number;
      readonly body: string;
      readonly headers: readonly (readonly [string, string])[];
    }
  /** Close the connection without answering (client sees a reset / "socket hang up"). */
  | { readonly kind: 'drop' }
  /** Never answer; the client's own timeout fires. The socket is closed when the server stops. */
  | { readonly kind: 'hang' };

export interface HttpRequestView {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly body: string;
  /** The Authorization header as sent; undefined without one. */
  readonly authorization?: string | undefined;
}

export type HttpHandler = (request: HttpRequestView) => HttpOutcome | Promise<HttpOutcome>;

/** How reachable the server is; tests flip this to simulate a slow or dead node. */
export type Availability =
  | { readonly kind: 'up' }
  | { readonly kind: 'slow'; readonly delayMs: number }
  /** Not listening at all: connections are refused. */
  | { readonly kind: 'unreachable' };

export interface RpcHttpServerOptions {
  readonly host: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** Bodies above this get 413 and the connection is closed (the real daemon's answer is not captured). */
  readonly maxBodyBytes: number;
  readonly handler: HttpHandler;
}

/**
 * A small node:http server for the simulated daemon and wallet: bounded bodies, raw header lists (so
 * the daemon's duplicated Content-Type can be reproduced) and fault injection (slow, unreachable,
 * dropped or hanging replies).
 */
export class RpcHttpServer {
  readonly #options: RpcHttpServerOptions;
  #server: Server | undefined;
  #port: number;
  #availability: Availability = { kind: 'up' };
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(options: RpcHttpServerOptions) {
    this.#options = options;
    this.#port = options.port;
  }

  /** The bound port (after `start`). */
  get port(): number {
    return this.#port;
  }

  get availability(): Availability {
    return this.#availability;
  }

  async start(): Promise<number> {
    if (this.#server) return this.#port;
    const server = createServer((req, res) => this.#onRequest(req, res));
    server.keepAliveTimeout = 5_000;
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
    return this.#port;
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    server.closeAllConnections();
    await closed;
  }

  /** Switches between up, slow and unreachable; "unreachable" stops listening, "up" listens again on the same port. */
  async setAvailability(availability: Availability): Promise<void> {
    this.#availability = availability;
    if (availability.kind === 'unreachable') {
      await this.stop();
    } else if (!this.#server) {
      await this.start();
    }
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (Number.isFinite(declared) && declared > this.#options.maxBodyBytes) {
      this.#rejectTooLarge(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let rejected = false;
    req.on('data', (chunk: Buffer) => {
      if (rejected) return;
      size += chunk.length;
      if (size > this.#options.maxBodyBytes) {
        rejected = true;
        this.#rejectTooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (rejected) return;
      const url = req.url ?? '/';
      const queryAt = url.indexOf('?');
      const request: HttpRequestView = {
        method: req.method ?? 'GET',
        path: queryAt >= 0 ? url.slice(0, queryAt) : url,
        body: Buffer.concat(chunks).toString('utf8'),
        authorization: req.headers.authorization,
      };
      const availability = this.#availability;
      if (availability.kind === 'slow') {
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          void this.#dispatch(request, res);
        }, availability.delayMs);
        this.#timers.add(timer);
      } else {
        void this.#dispatch(request, res);
      }
    });
  }

  async #dispatch(request: HttpRequestView, res: ServerResponse): Promise<void> {
    let outcome: HttpOutcome;
    try {
      outcome = await this.#options.handler(request);
    } catch {
      // A handler bug must never take the devnet down; answer like a generic server error.
      outcome = { kind: 'reply', status: 500, body: 'Internal server error', headers: [] };
    }
    if (res.destroyed) return;
    if (outcome.kind === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (outcome.kind === 'hang') return;
    const body = Buffer.from(outcome.body, 'utf8');
    const headers: string[] = [];
    for (const [name, value] of outcome.headers) headers.push(name, value);
    headers.push('Content-Length', String(body.length));
    res.writeHead(outcome.status, headers);
    res.end(body);
  }

  /** 413 with a plain-text body, then close: reading on would let a client stream unbounded data. */
  #rejectTooLarge(req: IncomingMessage, res: ServerResponse): void {
    const body = 'Request body too large';
    if (!res.headersSent) {
      res.writeHead(413, ['Content-Length', String(body.length), 'Connection', 'close']);
      res.end(body);
    }
    req.removeAllListeners('data');
    req.resume();
    setImmediate(() => req.socket.destroy());
  }
}
