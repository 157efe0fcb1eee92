import { chmod, lstat, mkdir, stat, unlink } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { type Connection, Server } from 'net-ipc';
import { MAX_SOCKET_PATH_BYTES } from '../../config/control-schema.js';
import type { Logger } from '../../log/logger.js';
import { ControlError, isWireCode } from './control-errors.js';
import { type ControlHandlerModules, ControlRequestHandler } from './control-handler.js';
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
  readonly hashrateWindowMs: number;
  readonly version: string;
  readonly heartbeatMs: number;
  /** See ControlHandlerOptions.banPrefixLengths. */
  readonly banPrefixLengths: readonly number[];
  /** Concurrent connections (operators' CLIs); more are refused by the kernel backlog. */
  readonly maxConnections: number;
  /** Requests one connection may have in flight. */
  readonly maxInFlightPerConnection: number;
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

/** What the parts of one control server share while it runs. */
interface ServingState {
  /** False until the socket is owner-only: connections before that are destroyed. */
  accepting: boolean;
  closing: boolean;
  /** Every request being served, so close() lets each reply go out first. */
  readonly pending: Set<Promise<void>>;
  readonly sockets: Set<Socket>;
  /** Set while the socket is being bound: a server error then fails the start. */
  rejectListen: ((error: unknown) => void) | undefined;
}

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

  const handler = new ControlRequestHandler(
    {
      hashrateWindowMs: options.hashrateWindowMs,
      version: options.version,
      heartbeatMs: options.heartbeatMs,
      banPrefixLengths: options.banPrefixLengths,
    },
    modules,
  );
  const state: ServingState = {
    accepting: false,
    closing: false,
    pending: new Set(),
    sockets: new Set(),
    rejectListen: undefined,
  };
  // retries: 0 - a reply that cannot be written is dropped, not retried for seconds.
  const ipc = new Server({ path: socketPath, retries: 0, max: options.maxConnections });
  watchConnections(ipc, state, logger);
  dispatchRequests(ipc, state, {
    maxInFlight: options.maxInFlightPerConnection,
    serve: (data, connection) => serveRequest(data, connection, { handler, logger }),
  });
  await listenOwnerOnly(ipc, socketPath, state);
  const { ino } = await stat(socketPath);
  state.accepting = true;
  logger.info({ socketPath }, 'control socket listening');

  return {
    socketPath,
    close: () => closeControlServer(ipc, state, { socketPath, ino, logger }),
  };
}

/** Server errors, and each connection: refused before the socket is ready, frame size bounded. */
function watchConnections(ipc: Server, state: ServingState, logger: Logger): void {
  ipc.on('error', (error: unknown, connection?: Connection) => {
    if (connection === undefined) {
      state.rejectListen?.(error);
      logger.error({ err: error }, 'control socket error');
      return;
    }
    // A frame that is not JSON, or a packet before the handshake: this client is broken.
    logger.debug({ err: error }, 'control connection error; closing it');
    connection.destroy();
  });
  ipc.on('connect', (connection: Connection) => {
    if (!state.accepting) {
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
}

/**
 * Hands each request to `serve` and sends its reply, at most `maxInFlight` per connection; once
 * the server closes, requests are answered SHUTTING_DOWN.
 */
function dispatchRequests(
  ipc: Server,
  state: ServingState,
  dispatch: {
    readonly maxInFlight: number;
    readonly serve: (data: unknown, connection: Connection) => Promise<ControlReply>;
  },
): void {
  const { maxInFlight } = dispatch;
  const inFlight = new Map<Connection, number>();
  ipc.on('disconnect', (connection: Connection) => inFlight.delete(connection));
  ipc.on('request', (data: unknown, respond: (reply: unknown) => Promise<void>, connection: Connection) => {
    const send = (reply: ControlReply) => {
      respond(reply).catch(() => undefined);
    };
    const count = inFlight.get(connection) ?? 0;
    if (!state.accepting || state.closing) {
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
    const served = dispatch
      .serve(data, connection)
      .then(send)
      .finally(() => {
        const left = (inFlight.get(connection) ?? 1) - 1;
        if (left > 0) inFlight.set(connection, left);
        else inFlight.delete(connection);
        state.pending.delete(served);
      });
    state.pending.add(served);
  });
}

/** One request: validated, handled (progress sent as it comes), answered with a result or a wire error. */
async function serveRequest(
  data: unknown,
  connection: Connection,
  modules: { readonly handler: ControlRequestHandler; readonly logger: Logger },
): Promise<ControlReply> {
  const { handler, logger } = modules;
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

/**
 * Binds the socket under an owner-only umask, then makes sure of mode 0600; on failure the server
 * is closed and the error is a ControlError (SOCKET_PERMISSIONS or SOCKET_IN_USE).
 */
async function listenOwnerOnly(ipc: Server, socketPath: string, state: ServingState): Promise<void> {
  const listening = new Promise<void>((resolve, reject) => {
    state.rejectListen = reject;
    // The bind happens synchronously inside start(), so the umask covers exactly this socket.
    const restoreUmask = narrowUmask();
    try {
      ipc.start().then(() => resolve(), reject);
    } finally {
      restoreUmask();
    }
    ipc.server.on('connection', (socket: Socket) => {
      state.sockets.add(socket);
      socket.once('close', () => state.sockets.delete(socket));
    });
  });
  try {
    await listening;
    state.rejectListen = undefined;
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
}

/**
 * Lets the requests in flight (a payout pass) finish and reply, closes the server (connections
 * that linger are destroyed after a grace period) and removes the socket file if it is still ours.
 */
async function closeControlServer(
  ipc: Server,
  state: ServingState,
  socket: { readonly socketPath: string; readonly ino: number; readonly logger: Logger },
): Promise<void> {
  if (state.closing) return;
  state.closing = true;
  const { socketPath, logger } = socket;
  // A payout pass in flight finishes and its reply goes out before the connections close.
  await Promise.allSettled([...state.pending]);
  const closed = new Promise<void>((resolve) => {
    if (ipc.server === null) resolve();
    else ipc.once('close', () => resolve());
  });
  await ipc.close().catch(() => undefined);
  const grace = setTimeout(() => {
    for (const open of state.sockets) open.destroy();
  }, CLOSE_GRACE_MS);
  await closed;
  clearTimeout(grace);
  // libuv removes the file when the server closes; make sure, but only if it is still ours.
  const left = await lstat(socketPath).catch(() => null);
  if (left?.isSocket() && left.ino === socket.ino) await unlink(socketPath).catch(() => undefined);
  logger.info({ socketPath }, 'control socket closed');
}

/**
 * Checks the path before net-ipc touches it (net-ipc unlinks whatever is there): the directory
 * must exist, a non-socket is never deleted, a live socket is never stolen, a stale one goes.
 */
async function prepareSocketPath(socketPath: string): Promise<void> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new ControlError('SOCKET_PATH_TOO_LONG', `${Buffer.byteLength(socketPath)} bytes`, { socketPath });
  }
  await privateDirectoryFor(socketPath);
  const existing = await lstat(socketPath).catch(() => null);
  if (existing === null) return;
  if (!existing.isSocket()) throw new ControlError('SOCKET_PATH_NOT_SOCKET', socketPath, { socketPath });
  if (await isListening(socketPath)) throw new ControlError('SOCKET_IN_USE', socketPath, { socketPath });
  const uid = process.getuid?.();
  if (uid !== undefined && existing.uid !== uid) {
    throw new ControlError(
      'SOCKET_FOREIGN',
      `${socketPath} is owned by uid ${existing.uid}, not by this process (uid ${uid}); remove it yourself if it is a leftover`,
      { socketPath, ownerUid: existing.uid },
    );
  }
  try {
    await unlink(socketPath); // our own socket, left by a crash
  } catch (error) {
    throw new ControlError(
      'SOCKET_IN_USE',
      'a stale socket cannot be removed',
      { socketPath },
      { cause: error },
    );
  }
}

/**
 * The socket's directory: created 0700 when missing (its parent must exist); an existing one must
 * belong to this user or root and must not let others add files (group/other-writable without
 * the sticky bit), or another local user could put a socket there before the pool does.
 */
async function privateDirectoryFor(socketPath: string): Promise<void> {
  const directory = dirname(socketPath);
  let info = await stat(directory).catch(() => null);
  if (info === null) {
    const parent = await stat(dirname(directory)).catch(() => null);
    if (parent === null || !parent.isDirectory()) {
      throw new ControlError('SOCKET_DIR_MISSING', directory, { socketPath, directory });
    }
    await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    info = await stat(directory);
  }
  if (!info.isDirectory()) throw new ControlError('SOCKET_DIR_MISSING', directory, { socketPath, directory });
  const uid = process.getuid?.();
  const othersMayWrite = (info.mode & 0o022) !== 0 && (info.mode & 0o1000) === 0;
  if (uid !== undefined && ((info.uid !== uid && info.uid !== 0) || othersMayWrite)) {
    throw new ControlError(
      'SOCKET_DIR_UNSAFE',
      `${directory} (owner uid ${info.uid}, mode ${(info.mode & 0o7777).toString(8)}) lets others add files; use a directory of your own, mode 0700`,
      { socketPath, directory, ownerUid: info.uid },
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
