import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:net';
import type { PoolConfig } from '../../config/schema.js';
import type { Logger } from '../../log/logger.js';
import type { FloodDrops } from '../../servers/flood-drop/flood-drops.js';
import type { ListenerFilter } from '../../servers/flood-drop/listener-filter.js';
import type { AdmissionVerdict } from '../../servers/stratum/connection-admission.js';
import type { ListeningPort } from '../../servers/stratum/stratum-server.js';
import { startFloodDrops } from '../flood-drop-start.js';
import type { ChildMessage, ChildStats } from './child-messages.js';

/**
 * Node publishes every net.Server#listen of this process here once the socket listens
 * (diagnostics_channel's built-in `net.server.listen` tracing channel), with the server, whose
 * libuv handle still holds the socket.
 */
const LISTEN_CHANNEL = 'tracing:net.server.listen:asyncEnd';

/** A listening TCP handle of this process (libuv's): its descriptor, negative once it is closed. */
interface ListeningHandle {
  readonly fd: number;
}

interface PrimarySocket {
  readonly port: number;
  readonly handle: ListeningHandle;
}

/**
 * The kernel drops of flooding peers for the stratum ports when the stratum role runs in cluster
 * children (`stratum.processes` > 1). Node cluster's round-robin scheduling (the default on
 * Linux) listens in this process, the primary, and hands each accepted connection to a child: the
 * listening sockets are here, so the drops are too. The children report their refusals
 * (`refusals`, child-refusal-reports.ts); the connection caps are decided here and noted as given.
 *
 * Finding the sockets: Node keeps them in cluster internals (a RoundRobinHandle per address, in a
 * map private to the module) and takes the handle off the net.Server it listened with. But that
 * server listens through net.Server#listen, which publishes on Node's `net.server.listen` tracing
 * channel, with the server's handle still on it: this process records every handle that starts
 * listening (a few: the API's too), and once a child serves, filters those bound to its stratum
 * ports. A round-robin handle is closed when its last child is gone and a new one made for the
 * next: its descriptor then reads negative, is never filtered again, and the new one is found at
 * that child's `ready`.
 *
 * Failure mode: no recorded socket on a stratum port — a Node without the channel (before 20.x),
 * or scheduling not round-robin (NODE_CLUSTER_SCHED_POLICY=none: each child then listens on a
 * shared socket itself, and this process has none). That is said once in the log at the first
 * child's `ready`, and floods are refused in Node as before. A socket is matched by its port only:
 * a server of this process listening on a stratum port's number on another address would be
 * filtered too.
 */
export class PrimaryFloodDrops {
  readonly #drops: FloodDrops;
  readonly #logger: Logger;
  /** Every socket this process listens on (recorded at listen), while it is open. */
  readonly #sockets: PrimarySocket[] = [];
  readonly #filtered = new Set<PrimarySocket>();
  #saidNotFound = false;
  readonly #onListen = (message: unknown): void => this.#record(message);

  constructor(drops: FloodDrops, logger: Logger) {
    this.#drops = drops;
    this.#logger = logger;
    subscribe(LISTEN_CHANNEL, this.#onListen);
  }

  /**
   * The drops for config.floodDrop, or undefined when they are off or the filter is not available
   * here (startFloodDrops says why). Before the children are forked: the sockets are recorded as
   * they start listening.
   */
  static start(
    config: Readonly<PoolConfig>,
    logger: Logger,
    filter?: ListenerFilter | { unavailable: string },
  ): PrimaryFloodDrops | undefined {
    const drops = startFloodDrops(config, logger, 'stratum', filter);
    return drops === undefined ? undefined : new PrimaryFloodDrops(drops, logger);
  }

  /** A child serves on `ports`: the sockets this process holds for them are filtered from now on. */
  childServing(ports: readonly ListeningPort[]): void {
    let found = false;
    for (const socket of this.#sockets) {
      if (socket.handle.fd < 0 || !ports.some((port) => port.port === socket.port)) continue;
      found = true;
      if (this.#filtered.has(socket)) continue;
      this.#filtered.add(socket);
      this.#drops.addListener({ fd: () => (socket.handle.fd >= 0 ? socket.handle.fd : undefined) });
    }
    if (found || this.#saidNotFound) return;
    this.#saidNotFound = true;
    this.#logger.info(
      {
        server: 'stratum',
        ports: ports.map((port) => port.port),
        reason:
          'stratum.processes > 1: the listening socket Node cluster holds in this process was not found (scheduling not round-robin, or a Node without the net.server.listen channel)',
      },
      'kernel drops of flooding peers are off; they are refused in Node',
    );
  }

  /** A child's `refusals` report. */
  noteReport(report: Extract<ChildMessage, { kind: 'refusals' }>): void {
    for (const [peer, count] of report.peers) this.#drops.noteRefusals(peer, count);
  }

  /** This process's answer to a child's `admit`: a peer over its connection cap was refused. */
  noteAdmission(peer: string, verdict: AdmissionVerdict): void {
    if (verdict === 'per-ip-limit' || verdict === 'per-network-limit') this.#drops.noteRefusal(peer);
  }

  /** The children's numbers added up, with this process's dropped peers (the children drop none). */
  withDropped(stats: ChildStats): ChildStats {
    const { stratum } = stats;
    const floodDropped = this.#drops.dropping();
    return { ...stats, stratum: { ...stratum, connections: { ...stratum.connections, floodDropped } } };
  }

  close(): void {
    unsubscribe(LISTEN_CHANNEL, this.#onListen);
    this.#drops.close();
  }

  /**
   * Called inside net.Server#listen: must not throw (a subscriber's error is rethrown as an
   * uncaught exception), so anything unexpected here is a socket not recorded.
   */
  #record(message: unknown): void {
    let port: number;
    let handle: ListeningHandle;
    try {
      const server = (message as { server?: Server } | null)?.server;
      const open = (server as unknown as { _handle?: Partial<ListeningHandle> | null } | undefined)?._handle;
      const address = server?.address();
      if (open == null || typeof open.fd !== 'number' || open.fd < 0) return;
      if (address === null || address === undefined || typeof address !== 'object') return;
      port = address.port;
      handle = open as ListeningHandle;
    } catch {
      return;
    }
    for (let i = this.#sockets.length - 1; i >= 0; i--) {
      const closed = this.#sockets[i]!;
      if (closed.handle.fd >= 0) continue;
      this.#sockets.splice(i, 1);
      this.#filtered.delete(closed);
    }
    this.#sockets.push({ port, handle });
  }
}
