import { chmod, lstat, stat, unlink } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { type Connection, Server } from 'net-ipc';
import { MAX_SOCKET_PATH_BYTES } from '../../config/control-schema.js';
import { ControlError, isWireCode } from './control-errors.js';
import {
  type ControlHandlerModules,
  type ControlHandlerOptions,
  ControlRequestHandler,
} from './control-handler.js';
import {
  CONTROL_PROTOCOL_VERSION,
  type ControlProgress,
  type ControlProgressMessage,
  type ControlReply,
  type ControlRequest,
  controlRequestSchema,
  MAX_FRAME_BYTES,
} from './control-protocol.js';

export interface ControlServerOptions {
  readonly socketPath: string;
  readonly hashrateWindowMs?: number;
  readonly version?: string;
  readonly heartbeatMs?: number;
  /** Concurrent connections (operators' CLIs); more are refused by the kernel backlog. */
  readonly maxConnections?: number;
  /** Requests one connection may have in flight. */
  readonly maxInFlightPerConnection?: number;
}

export type ControlServerModules = ControlHandlerModules;

export interface ControlServer {
  readonly socketPath: string;
  /** Refuses new requests, waits for a payout pass in flight, closes connections, removes the socket. */
  close(): Promise<void>;
}

const OWNER_ONLY = 0o600;
/** umask while the socket is bound: no bits for group and others, so it is born 0600. */
const OWNER_ONLY_UMASK = 0o177;
const CLOSE_GRACE_MS = 1_000;
const PROBE_TIMEOUT_MS = 500;

/**
 * Starts the operator control socket (net-ipc over a Unix socket). Access control is the file
 * mode: the socket is bound under umask 0177 and chmod-ed 0600 before any request is served, so
 * only the pool's user (and root) can connect. A live socket at the path is never replaced; a
 * stale one is removed; anything else at the path is refused.
 */
export async function startControlServer(
  options: ControlServerOptions,
  modules: ControlServerModules,
): Promise<ControlServer> {
  const { socketPath } = options;
  const logger = modules.logger;
  await prepareSocketPath(socketPath);

  const handlerOptions: ControlHandlerOptions = {
    hashrateWindowMs: options.hashrateWindowMs ?? 600_000,
    version: options.version ?? '0.1.0',
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  };
  const handler = new ControlRequestHandler(handlerOptions, modules);
  const maxInFlight = options.maxInFlightPerConnection ?? 8;
  const inFlight = new Map<Connection, number>();
  /** Every request being served, so close() lets each reply go out first. */
  const pending = new Set<Promise<void>>();
  const sockets = new Set<Socket>();
  let accepting = false;
  let closing = false;

  // retries: 0 - a reply that cannot be written is dropped, not retried for seconds.
  const ipc = new Server({ path: socketPath, retries: 0, max: options.maxConnections ?? 16 });
  let rejectListen: ((error: unknown) => void) | undefined;
  ipc.on('error', (error: unknown, connection?: Connection) => {
    if (connection === undefined) {
      rejectListen?.(error);
      logger.error({ err: error }, 'control socket error');
      return;
    }
    // A frame that is not JSON, or a packet before the handshake: this client is broken.
    logger.debug({ err: error }, 'control connection error; closing it');
    connection.destroy();
  });
  ipc.on('connect', (connection: Connection) => {
    if (!accepting) {
      connection.destroy();
      return;
    }
    // Added after the handshake: net-ipc drops every 'readable' listener when a client says hello.
    const socket = connection.connection as Socket;
    socket.on('readable', () => {
      if (socket.readableLength > MAX_FRAME_BYTES) {
        logger.warn({ bytes: socket.readableLength }, 'control frame too large; closing the connection');
        socket.destroy();
      }
    });
  });
  ipc.on('disconnect', (connection: Connection) => inFlight.delete(connection));
  ipc.on('request', (data: unknown, respond: (reply: unknown) => Promise<void>, connection: Connection) => {
    const send = (reply: ControlReply) => {
      respond(reply).catch(() => undefined);
    };
    const count = inFlight.get(connection) ?? 0;
    if (!accepting || closing) {
      send(errorReply(idOf(data), new ControlError('SHUTTING_DOWN')));
      return;
    }
    if (count >= maxInFlight) {
      send(
        errorReply(
          idOf(data),
          new ControlError('BAD_REQUEST', `more than ${maxInFlight} requests in flight`),
        ),
      );
      return;
    }
    inFlight.set(connection, count + 1);
    const served = serve(data, connection)
      .then(send)
      .finally(() => {
        const left = (inFlight.get(connection) ?? 1) - 1;
        if (left > 0) inFlight.set(connection, left);
        else inFlight.delete(connection);
        pending.delete(served);
      });
    pending.add(served);
  });

  async function serve(data: unknown, connection: Connection): Promise<ControlReply> {
    const parsed = controlRequestSchema.safeParse(data);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`,
      );
      return errorReply(idOf(data), new ControlError('BAD_REQUEST', issues.join('; '), { issues }));
    }
    const request: ControlRequest = parsed.data;
    const progress = (update: ControlProgress) => {
      const message: ControlProgressMessage = {
        v: CONTROL_PROTOCOL_VERSION,
        kind: 'progress',
        id: request.id,
        progress: update,
      };
      // The client may have gone: the work goes on, its progress goes nowhere.
      connection.send(message).catch(() => undefined);
    };
    logger.debug({ type: request.type }, 'control request');
    try {
      const result = await handler.handle(request, progress);
      return { v: CONTROL_PROTOCOL_VERSION, id: request.id, ok: true, result } as ControlReply;
    } catch (error) {
      if (error instanceof ControlError && isWireCode(error.code)) return errorReply(request.id, error);
      logger.error({ err: error, type: request.type }, 'control request failed');
      return errorReply(request.id, new ControlError('INTERNAL'));
    }
  }

  const listening = new Promise<void>((resolve, reject) => {
    rejectListen = reject;
    // The bind happens synchronously inside start(), so the umask covers exactly this socket.
    const restoreUmask = narrowUmask();
    try {
      ipc.start().then(() => resolve(), reject);
    } finally {
      restoreUmask();
    }
    ipc.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
  });
  try {
    await listening;
    rejectListen = undefined;
    await chmod(socketPath, OWNER_ONLY);
    const mode = (await stat(socketPath)).mode & 0o777;
    if (mode !== OWNER_ONLY)
      throw new ControlError('SOCKET_PERMISSIONS', `mode is ${mode.toString(8)}`, { socketPath });
  } catch (error) {
    await ipc.close().catch(() => undefined);
    if (error instanceof ControlError) throw error;
    const errno = (error as { code?: unknown } | null)?.code;
    const code = errno === 'EACCES' || errno === 'EPERM' ? 'SOCKET_PERMISSIONS' : 'SOCKET_IN_USE';
    throw new ControlError(code, errorText(error), { socketPath }, { cause: error });
  }
  const { ino } = await stat(socketPath);
  accepting = true;
  logger.info({ socketPath }, 'control socket listening');

  return {
    socketPath,
    async close() {
      if (closing) return;
      closing = true;
      // A payout pass in flight finishes and its reply goes out before the connections close.
      await Promise.allSettled([...pending]);
      const closed = new Promise<void>((resolve) => {
        if (ipc.server === null) resolve();
        else ipc.once('close', () => resolve());
      });
      await ipc.close().catch(() => undefined);
      const grace = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      await closed;
      clearTimeout(grace);
      // libuv removes the file when the server closes; make sure, but only if it is still ours.
      const left = await lstat(socketPath).catch(() => null);
      if (left?.isSocket() && left.ino === ino) await unlink(socketPath).catch(() => undefined);
      logger.info({ socketPath }, 'control socket closed');
    },
  };
}

/**
 * Checks the path before net-ipc touches it (net-ipc unlinks whatever is there): the directory
 * must exist, a non-socket is never deleted, a live socket is never stolen, a stale one goes.
 */
async function prepareSocketPath(socketPath: string): Promise<void> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new ControlError('SOCKET_PATH_TOO_LONG', `${Buffer.byteLength(socketPath)} bytes`, { socketPath });
  }
  const directory = dirname(socketPath);
  const dirStat = await stat(directory).catch(() => null);
  if (dirStat === null || !dirStat.isDirectory()) {
    throw new ControlError('SOCKET_DIR_MISSING', directory, { socketPath, directory });
  }
  const existing = await lstat(socketPath).catch(() => null);
  if (existing === null) return;
  if (!existing.isSocket()) throw new ControlError('SOCKET_PATH_NOT_SOCKET', socketPath, { socketPath });
  if (await isListening(socketPath)) throw new ControlError('SOCKET_IN_USE', socketPath, { socketPath });
  try {
    await unlink(socketPath);
  } catch (error) {
    throw new ControlError(
      'SOCKET_IN_USE',
      `a stale socket owned by uid ${existing.uid} cannot be removed`,
      { socketPath, ownerUid: existing.uid },
      { cause: error },
    );
  }
}

function isListening(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path: socketPath });
    const done = (alive: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    probe.once('connect', () => done(true));
    // ECONNREFUSED: stale. EACCES: someone else's socket - treat as in use, never delete it.
    probe.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'),
    );
  });
}

/**
 * Sets the process umask to owner-only and returns the function that restores it. Where the
 * umask cannot be changed (worker threads), the chmod after bind is the only protection, and
 * connections are not served before it.
 */
function narrowUmask(): () => void {
  try {
    const previous = process.umask(OWNER_ONLY_UMASK);
    return () => process.umask(previous);
  } catch {
    return () => undefined;
  }
}

function idOf(data: unknown): string {
  const id = (data as { id?: unknown } | null)?.id;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : '';
}

function errorReply(id: string, error: ControlError): ControlReply {
  return {
    v: CONTROL_PROTOCOL_VERSION,
    id,
    ok: false,
    error: {
      code: isWireCode(error.code) ? error.code : 'INTERNAL',
      message: error.message,
      data: { ...error.data },
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
