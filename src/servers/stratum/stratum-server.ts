import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext, TLSSocket } from 'node:tls';
import type { Logger } from '../../log/logger.js';
import { PeerBudget } from '../../pool/peer-budget.js';
import { peerKey, unmappedIp } from '../../pool/peer-key.js';
import type { StratumBackend } from '../../pool/stratum-backend.js';
import type { ServerFloodDrops } from '../flood-drop/flood-drops.js';
import {
  type AdmissionVerdict,
  type ConnectionAdmission,
  ConnectionCounter,
  ProcessConnectionCap,
} from './connection-admission.js';
import type { ConnectionRefusal } from './connection-context.js';
import type { ProtocolViolationCode } from './protocol.js';
import type { SocketWriteBatch } from './socket-write-batch.js';
import { StratumConnection } from './stratum-connection.js';
import { type CloseReason, StratumMetrics, type StratumMetricsSnapshot } from './stratum-metrics.js';
import {
  checkedLimits,
  type StratumLimits,
  type StratumPortOptions,
  StratumServerError,
  type StratumServerOptions,
  validatePorts,
} from './stratum-options.js';
import { SubmitGate } from './submit-gate.js';
import { awaitTlsPortGreeting } from './tls-port-greeting.js';

/**
 * A banned peer is told why ("Your IP is banned") on one connection in 10 s, so a miner's operator
 * sees it; its other connections are reset at accept, unread, since a peer reconnecting at full speed
 * would otherwise cost a session, a parse and a reply each time. One token per peer, refilled at
 * 6 a minute; the least recently seen peers are forgotten first.
 */
const BANNED_NOTICES = { burst: 1, perMinute: 6, maxPeers: 10_000 } as const;

export interface StratumServerModules {
  readonly backend: StratumBackend;
  readonly logger: Logger;
  /** Told about every protocol violation, e.g. to feed a ban policy. */
  readonly onProtocolViolation?: (ip: string, code: ProtocolViolationCode) => void;
  /**
   * Who applies limits.maxConnections and maxConnectionsPerIp; by default this server counts its
   * own connections. A stratum child process passes its parent's host-wide count.
   */
  readonly admission?: ConnectionAdmission;
  /**
   * Connections this process may hold whatever `admission` allows (its open-files limit, see
   * ProcessConnectionCap); none: no cap of its own.
   */
  readonly maxConnectionsInProcess?: number;
  /**
   * Drops the new connections of peers that keep coming while refused (flood-drops.ts; in a stratum
   * child process, its report to the pool process); none: Node refuses them.
   */
  readonly floodDrops?: ServerFloodDrops;
  /** Batches the lines to plain TCP miners past Node's stream (socket-write-batch.ts); none: Node writes. */
  readonly directWrites?: SocketWriteBatch;
}

export interface ListeningPort {
  /** As configured (0 for "any"). */
  readonly configuredPort: number;
  /** As bound. */
  readonly port: number;
  readonly host: string;
  readonly tls: boolean;
}

interface PortRuntime {
  readonly options: StratumPortOptions;
  readonly host: string;
  readonly secureContext: SecureContext | undefined;
  server: Server | undefined;
  boundPort: number;
}

/** Errors before and during a connection's setup end in its 'close'; one listener for all of them. */
function ignoreSetupError(): void {}

/**
 * The stratum TCP/TLS edge: one listener per configured port, one StratumConnection per socket,
 * connection caps, submit back-pressure and ordered shutdown. All pool logic sits behind
 * StratumBackend. TLS sockets are wrapped by hand around the accepted TCP socket, so caps, bans
 * and the login deadline (which covers the handshake) apply before any TLS work is done.
 */
export class StratumServer {
  readonly #limits: StratumLimits;
  readonly #ports: PortRuntime[];
  readonly #backend: StratumBackend;
  readonly #logger: Logger;
  readonly #gate: SubmitGate;
  readonly #stats = new StratumMetrics();
  readonly #connections = new Set<StratumConnection>();
  /** Admitted sockets on TLS ports whose first bytes have not come yet (tls-port-greeting.ts). */
  readonly #awaitingGreeting = new Set<Socket>();
  readonly #admission: ConnectionAdmission;
  readonly #bannedNotices = new PeerBudget(BANNED_NOTICES);
  readonly #ipv6PrefixLength: number;
  readonly #onProtocolViolation: ((ip: string, code: ProtocolViolationCode) => void) | undefined;
  readonly #floodDrops: ServerFloodDrops | undefined;
  readonly #directWrites: SocketWriteBatch | undefined;
  #nextConnectionId = 1;
  #started = false;
  #closing: Promise<void> | undefined;
  readonly #allClosedWaiters: Array<() => void> = [];

  constructor(opts: StratumServerOptions, modules: StratumServerModules) {
    validatePorts(opts.ports);
    const prefix = opts.ipv6PrefixLength;
    if (!(Number.isInteger(prefix) && prefix >= 0 && prefix <= 128)) {
      throw new StratumServerError(
        'BAD_OPTIONS',
        'stratum ipv6PrefixLength must be an integer from 0 to 128',
        {
          ipv6PrefixLength: prefix,
        },
      );
    }
    this.#limits = checkedLimits(opts.limits);
    this.#backend = modules.backend;
    this.#logger = modules.logger.child({ module: 'stratum' });
    this.#onProtocolViolation = modules.onProtocolViolation;
    this.#floodDrops = modules.floodDrops;
    this.#directWrites = modules.directWrites;
    const hostCaps = modules.admission ?? new ConnectionCounter(this.#limits);
    this.#admission =
      modules.maxConnectionsInProcess === undefined
        ? hostCaps
        : new ProcessConnectionCap(modules.maxConnectionsInProcess, hostCaps);
    this.#ipv6PrefixLength = prefix;
    this.#ports = opts.ports.map((options) => ({
      options,
      host: options.host,
      secureContext: options.tls ? this.#secureContextFor(options) : undefined,
      server: undefined,
      boundPort: options.port,
    }));
    this.#gate = new SubmitGate((ip) => this.#canAcceptSubmits(ip), this.#limits.submitPollMs);
  }

  /** Listens on every port; resolves when all listen. On failure closes the ones already open. */
  async start(): Promise<void> {
    if (this.#started) throw new StratumServerError('ALREADY_STARTED', 'stratum server already started');
    this.#started = true;
    try {
      await Promise.all(this.#ports.map((port) => this.#listen(port)));
    } catch (error) {
      await Promise.all(this.#ports.map((port) => this.#closeListener(port)));
      throw error;
    }
    for (const port of this.#ports) {
      this.#logger.info(
        { host: port.host, port: port.boundPort, tls: port.secureContext !== undefined },
        'stratum listening',
      );
    }
  }

  listening(): ListeningPort[] {
    return this.#ports
      .filter((p) => p.server?.listening)
      .map((p) => ({
        configuredPort: p.options.port,
        port: p.boundPort,
        host: p.host,
        tls: p.secureContext !== undefined,
      }));
  }

  metrics(): StratumMetricsSnapshot {
    const snapshot = this.#stats.snapshot();
    const floodDropped = this.#floodDrops?.dropping() ?? 0;
    return floodDropped === 0
      ? snapshot
      : { ...snapshot, connections: { ...snapshot.connections, floodDropped } };
  }

  /**
   * Ordered shutdown: stop accepting, then end every connection gracefully (replies already being
   * worked on still go out, each session is disconnected in the backend), then resolve once every
   * socket is gone. Connections that do not finish within closeGraceMs are destroyed.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const listenersClosed = Promise.all(this.#ports.map((port) => this.#closeListener(port)));
    const connectionsClosed = new Promise<void>((resolve) => {
      if (this.#connections.size === 0 && this.#awaitingGreeting.size === 0) resolve();
      else this.#allClosedWaiters.push(resolve);
    });
    for (const connection of this.#connections) connection.shutdown();
    for (const socket of this.#awaitingGreeting) socket.destroy();
    await Promise.all([listenersClosed, connectionsClosed]);
    this.#gate.stop();
    this.#logger.info('stratum server closed');
  }

  #secureContextFor(options: StratumPortOptions): SecureContext {
    try {
      return createSecureContext({ cert: options.tls!.cert, key: options.tls!.key });
    } catch (error) {
      throw new StratumServerError(
        'BAD_TLS_MATERIAL',
        `stratum port ${options.port}: TLS cert/key are not a usable PEM pair (${(error as Error).message})`,
        { port: options.port },
        { cause: error },
      );
    }
  }

  #listen(port: PortRuntime): Promise<void> {
    // No noDelay/keepAlive here: Node would set them on every accepted socket, refused ones too
    // (a flood of them); StratumConnection sets both once a connection is admitted.
    const server = createServer();
    port.server = server;
    server.on('connection', (socket: Socket) => this.#onConnection(socket, port));
    return new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const where = `${port.host}:${port.options.port}`;
        reject(
          error.code === 'EADDRINUSE'
            ? new StratumServerError('PORT_IN_USE', `stratum port ${where} is already in use`, {
                port: port.options.port,
                host: port.host,
              })
            : new StratumServerError('LISTEN_FAILED', `stratum port ${where}: ${error.message}`, {
                port: port.options.port,
                host: port.host,
                errno: error.code,
              }),
        );
      };
      server.once('error', onError);
      server.listen({ port: port.options.port, host: port.host, backlog: this.#limits.listenBacklog }, () => {
        server.off('error', onError);
        server.on('error', (error) =>
          this.#logger.error({ err: error, port: port.boundPort }, 'stratum listener error'),
        );
        const address = server.address();
        if (address && typeof address === 'object') port.boundPort = address.port;
        this.#floodDrops?.addListener(server);
        resolve();
      });
    });
  }

  #closeListener(port: PortRuntime): Promise<void> {
    const server = port.server;
    if (!server?.listening) return Promise.resolve();
    this.#floodDrops?.removeListener(server);
    // net.Server#close waits for open connections; those are ended separately by shutdown().
    return new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #onConnection(socket: Socket, port: PortRuntime): void {
    socket.on('error', ignoreSetupError);
    // "::ffff:1.2.3.4" (IPv4 on a dual-stack listener) is the same peer as "1.2.3.4" for bans and caps.
    const remote = socket.remoteAddress; // a getter over getpeername: read once per accept
    const ip = remote === undefined ? undefined : unmappedIp(remote);
    if (ip === undefined || this.#closing) {
      if (ip !== undefined) this.#stats.connectionRefused('shutting-down');
      socket.destroy();
      return;
    }
    // Counted by network for IPv6, so one subscriber's /64 cannot open connections without end.
    const peer = peerKey(ip, this.#ipv6PrefixLength);
    if (this.#isBanned(ip) && !this.#bannedNotices.take(peer, Date.now())) {
      this.#stats.connectionRefused('banned');
      this.#floodDrops?.noteRefusal(peer, 'banned');
      socket.resetAndDestroy();
      return;
    }
    let verdict: AdmissionVerdict | Promise<AdmissionVerdict>;
    try {
      verdict = this.#admission.admit(peer);
    } catch (error) {
      this.#logger.error({ err: error, ip }, 'connection admission failed; refusing the connection');
      verdict = 'shutting-down';
    }
    if (typeof verdict === 'string') {
      this.#onAdmission(socket, port, ip, peer, verdict);
      return;
    }
    // Asked of another process: the socket buffers what the peer sends meanwhile (a TLS wrap
    // later takes the buffered bytes over), and a peer that leaves first is noticed below.
    verdict.then(
      (answer) => this.#onAdmission(socket, port, ip, peer, answer),
      (error: unknown) => {
        this.#logger.error({ err: error, ip }, 'connection admission failed; refusing the connection');
        this.#onAdmission(socket, port, ip, peer, 'shutting-down');
      },
    );
  }

  #onAdmission(socket: Socket, port: PortRuntime, ip: string, peer: string, verdict: AdmissionVerdict): void {
    if (verdict === 'admit' && (this.#closing || socket.destroyed)) {
      this.#admission.release(peer);
      if (this.#closing) this.#stats.connectionRefused('shutting-down');
      socket.destroy();
      return;
    }
    if (verdict !== 'admit') {
      // No reply: there is no request to answer yet; XMRig retries after its retry-pause. A reset,
      // not a FIN: the kernel frees the socket at once instead of keeping it in TIME_WAIT, which a
      // connection flood would fill (the pool closes first, so the wait would be its own).
      this.#stats.connectionRefused(verdict);
      if (verdict === 'per-ip-limit' || verdict === 'per-network-limit')
        this.#floodDrops?.noteRefusal(peer, 'connection-cap');
      socket.resetAndDestroy();
      return;
    }

    this.#stats.connectionOpened(port.boundPort);
    const secureContext = port.secureContext;
    if (secureContext === undefined) {
      this.#openConnection(socket, socket, port, ip, this.#isBanned(ip) ? 'BANNED' : undefined);
    } else {
      void this.#openOnTlsPort(socket, port, ip, peer, secureContext);
    }
  }

  /**
   * A TLS port looks at the first bytes before wrapping: plain JSON is a miner without TLS, told
   * so in plain text (TLS_REQUIRED) instead of the bare EOF the TLS stack would give it. Anything
   * else goes to the TLS stack as it came. The wait counts against the login deadline.
   */
  async #openOnTlsPort(
    socket: Socket,
    port: PortRuntime,
    ip: string,
    peer: string,
    secureContext: SecureContext,
  ): Promise<void> {
    const startedMs = performance.now();
    this.#awaitingGreeting.add(socket);
    const greeting = await awaitTlsPortGreeting(socket, this.#limits.loginTimeoutMs);
    this.#awaitingGreeting.delete(socket);
    if (this.#closing || socket.destroyed || greeting === 'gone' || greeting === 'timeout') {
      socket.destroy();
      const reason = this.#closing ? 'shutdown' : greeting === 'timeout' ? 'login-timeout' : 'peer';
      this.#connectionGone(port.boundPort, peer, reason);
      return;
    }
    const loginTimeLeftMs = Math.max(0, this.#limits.loginTimeoutMs - (performance.now() - startedMs));
    const banned = this.#isBanned(ip);
    if (greeting === 'plain-json') {
      this.#openConnection(socket, socket, port, ip, banned ? 'BANNED' : 'TLS_REQUIRED', loginTimeLeftMs);
      socket.resume(); // paused by the greeting wait; a plain socket is read as it is
      return;
    }
    const transport = new TLSSocket(socket, { isServer: true, secureContext, requestCert: false });
    this.#openConnection(socket, transport, port, ip, banned ? 'BANNED' : undefined, loginTimeLeftMs);
  }

  #openConnection(
    raw: Socket,
    transport: Duplex,
    port: PortRuntime,
    ip: string,
    refusal: ConnectionRefusal | undefined,
    loginTimeLeftMs?: number,
  ): void {
    const connection = new StratumConnection({
      id: this.#nextConnectionId++,
      raw,
      transport,
      info: {
        remoteAddress: ip,
        port: port.boundPort,
        tls: transport !== raw,
        startDifficulty: port.options.difficulty,
        fixedDifficulty: port.options.fixedDifficulty,
        solo: port.options.solo,
      },
      refusal,
      limits: this.#limits,
      ...(this.#directWrites === undefined ? {} : { directWrites: this.#directWrites }),
      ...(loginTimeLeftMs === undefined ? {} : { loginTimeLeftMs }),
      backend: this.#backend,
      gate: this.#gate,
      metrics: this.#stats,
      logger: this.#logger,
      onProtocolViolation: this.#onProtocolViolationOf,
      onClosed: (reason) => this.#onConnectionClosed(connection, reason),
    });
    this.#connections.add(connection);
  }

  /** One function for every connection's context (a closure each would be kept per miner). */
  readonly #onProtocolViolationOf = (ip: string, code: ProtocolViolationCode): void =>
    this.#protocolViolation(ip, code);

  #protocolViolation(ip: string, code: ProtocolViolationCode): void {
    this.#stats.protocolViolation(ip, code);
    try {
      this.#onProtocolViolation?.(ip, code);
    } catch (error) {
      this.#logger.error({ err: error, ip }, 'onProtocolViolation hook failed');
    }
  }

  #onConnectionClosed(connection: StratumConnection, reason: CloseReason): void {
    if (!this.#connections.delete(connection)) return;
    const ip = connection.info.remoteAddress;
    this.#logger.debug({ connection: connection.id, ip, reason }, 'stratum connection closed');
    const peer = peerKey(ip, this.#ipv6PrefixLength);
    // Closed for what it sent (a refused login: a new-address flood, a bad address, a ban; or
    // garbage): a peer that keeps reconnecting to do it again floods like one refused at accept.
    if (reason === 'login-failed' || reason === 'protocol-violation')
      this.#floodDrops?.noteRefusal(peer, reason);
    this.#connectionGone(connection.info.port, peer, reason);
  }

  /** An admitted connection is gone: its count is given back, and a shutdown may be complete. */
  #connectionGone(boundPort: number, peer: string, reason: CloseReason): void {
    this.#admission.release(peer);
    this.#stats.connectionClosed(boundPort, reason);
    if (this.#connections.size === 0 && this.#awaitingGreeting.size === 0) {
      for (const resolve of this.#allClosedWaiters.splice(0)) resolve();
    }
  }

  #isBanned(ip: string): boolean {
    try {
      return this.#backend.isBanned(ip);
    } catch (error) {
      this.#logger.error({ err: error, ip }, 'backend.isBanned failed; letting the connection in');
      return false;
    }
  }

  #canAcceptSubmits(ip: string): boolean {
    try {
      return this.#backend.canAcceptSubmits(ip);
    } catch (error) {
      this.#logger.error({ err: error }, 'backend.canAcceptSubmits failed; accepting submits');
      return true;
    }
  }
}
