import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { compiledSiblingUrl } from '../../compiled-module-url.js';
import type { PoolConfig } from '../../config/schema.js';
import { FuegoPoolError } from '../../errors.js';
import type { Logger } from '../../log/logger.js';
import type { BanRegistry } from '../../pool/ban-registry.js';
import type { RpcCallFanout } from '../../rpc/rpc-call-observer.js';
import type { StratumProcessView } from '../../servers/control/control-protocol.js';
import type { ListeningPort } from '../../servers/stratum/stratum-server.js';
import type { StratumSurface } from '../stratum-surface.js';
import { childConfig, childExecArgv } from './child-config.js';
import {
  banMessageOf,
  type ChildMessage,
  type ChildStats,
  isChildMessage,
  type ParentMessage,
} from './child-messages.js';
import { type ChildSlot, idleChildSlot } from './child-slot.js';
import { countersOnly, sumChildStats } from './child-stats-sum.js';
import { surfaceOfProcessGroup } from './group-surface.js';
import { HostConnectionCounts } from './host-connection-counts.js';
import { PrimaryFloodDrops } from './primary-flood-drops.js';

export type StratumProcessErrorCode = 'CHILD_START_FAILED' | 'NODE_ID_RANGE';

export class StratumProcessError extends FuegoPoolError<StratumProcessErrorCode> {}

export interface StratumProcessGroupOptions {
  /** The pool's validated config. */
  readonly config: Readonly<PoolConfig>;
  /** How many children (stratum.processes resolved, see stratumProcessCount). */
  readonly processes: number;
  /** PEM for TLS ports when not read from stratum.tls files (the children get a copy). */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** How often each child reports its numbers. */
  readonly snapshotIntervalMs?: number;
  /**
   * A child that has not booted by then (process up, Redis connected, role built) is killed: it
   * fails the start, or is started again. Its wait for the first template after that has no limit.
   */
  readonly startTimeoutMs?: number;
  /** Time each child gets to close its miners and flush its shares before SIGKILL. */
  readonly stopTimeoutMs?: number;
  /** First wait before a crashed child is started again; doubles per crash up to the max. */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
}

export interface StratumProcessGroupModules {
  readonly logger: Logger;
  /** The child entry; defaults to the compiled stratum-child-main.js beside this module. */
  readonly entry?: URL;
  readonly clock?: () => number;
  /** Rejects if the pool must give up starting (a fatal leader error): the children are stopped. */
  readonly abandon?: Promise<never>;
  /** The pool's bans: the children's decisions go there, and every ban in force reaches every child. */
  readonly bans: BanRegistry;
  /** Where the RPC calls the children make (submitblock, alias lookups) go: the pool's RPC metrics. */
  readonly rpcCalls?: Pick<RpcCallFanout, 'report'>;
}

/** A child that served this long has its restart delay reset (its crash was not a start loop). */
const STABLE_RUN_MS = 60_000;

/**
 * `stratum.processes` > 1: the stratum role in that many child processes (Node cluster), sharing
 * the stratum ports; the parent keeps the leader, API and control roles. Each child has its own
 * node id, verifier threads, Redis connection and miners; templates reach it through Redis like
 * any stratum node. The parent:
 * - starts the children and fails its own start if one cannot serve (one that boots waits for
 *   its first template as long as the daemon takes); restarts one that dies, with a growing delay;
 * - passes the bans of the pool's registry on to every child (all of them to a child that starts,
 *   before it opens the ports, then every change, also while it waits for its first template), and
 *   a child's ban to the registry, since a banned miner's next connection may land on any child;
 * - counts the connections of all children, so that stratum.limits.maxConnections and
 *   maxConnectionsPerIp are caps for the host (each child asks before it opens a connection);
 * - drops flooding peers on the stratum sockets it listens on for the children (PrimaryFloodDrops),
 *   from the refusals they report and its own connection cap verdicts;
 * - adds the children's numbers up and times their RPC calls (each reported as it ends) with its
 *   own, so the API, metrics and `status` show one pool.
 */
export class StratumProcessGroup {
  readonly #options: Required<Omit<StratumProcessGroupOptions, 'tls'>> &
    Pick<StratumProcessGroupOptions, 'tls'>;
  readonly #logger: Logger;
  readonly #bans: BanRegistry;
  readonly #rpcCalls: Pick<RpcCallFanout, 'report'> | undefined;
  readonly #abandon: Promise<never> | undefined;
  readonly #unsubscribeBans: () => void;
  readonly #clock: () => number;
  readonly #entry: URL;
  readonly #slots: ChildSlot[];
  readonly #connections: HostConnectionCounts;
  /** The kernel drops on the stratum sockets this process listens on for the children; none: off. */
  readonly #floods: PrimaryFloodDrops | undefined;
  #listening: ListeningPort[] = [];
  #stopping = false;
  /** Counters of the children that exited (see countersOnly). */
  #retired: ChildStats | null = null;

  /**
   * The group with no child started yet (every child `stopped`, its surface reading zero): the
   * parent's control socket and API can run while serve() waits for the children.
   */
  constructor(options: StratumProcessGroupOptions, modules: StratumProcessGroupModules) {
    const { nodeId } = options.config.pool;
    const { processes } = options;
    if (nodeId + processes - 1 > 0xffff) {
      throw new StratumProcessError(
        'NODE_ID_RANGE',
        `pool.nodeId ${nodeId} + stratum.processes ${processes} - 1 is above 65535 (each process takes a node id)`,
        { nodeId, processes },
      );
    }
    this.#options = {
      snapshotIntervalMs: 1_000,
      startTimeoutMs: 120_000,
      stopTimeoutMs: 20_000,
      restartDelayMs: 1_000,
      maxRestartDelayMs: 30_000,
      ...options,
    };
    this.#logger = modules.logger;
    this.#bans = modules.bans;
    this.#rpcCalls = modules.rpcCalls;
    this.#abandon = modules.abandon;
    this.#clock = modules.clock ?? Date.now;
    this.#entry = modules.entry ?? compiledSiblingUrl('stratum-child-main.js', import.meta.url);
    this.#connections = new HostConnectionCounts(options.config.stratum.limits);
    this.#slots = Array.from({ length: processes }, (_, index) =>
      idleChildSlot(index, nodeId + index, this.#options.restartDelayMs),
    );
    this.#unsubscribeBans = this.#bans.onChange((change) => this.#broadcast(banMessageOf(change)));
    // Before any child is forked: the sockets are found as they start listening.
    this.#floods = PrimaryFloodDrops.start(options.config, this.#logger);
  }

  /** The constructor and serve(): resolves once every child serves; on any failure stops them and throws. */
  static async start(
    options: StratumProcessGroupOptions,
    modules: StratumProcessGroupModules,
  ): Promise<StratumProcessGroup> {
    const group = new StratumProcessGroup(options, modules);
    await group.serve();
    return group;
  }

  /**
   * Starts every child and resolves once all of them serve (each waits for its first template, with
   * no limit once it has booted); on any failure, or the modules' `abandon`, stops them and throws.
   */
  async serve(): Promise<void> {
    cluster.setupPrimary({
      exec: fileURLToPath(this.#entry),
      args: [],
      execArgv: childExecArgv(process.execArgv, this.#options.config.stratum.childSemiSpaceMb),
      serialization: 'advanced',
    });
    try {
      const started = Promise.all(this.#slots.map((slot) => this.#startChild(slot)));
      await (this.#abandon ? Promise.race([started, this.#abandon]) : started);
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.#logger.info(
      { processes: this.#slots.length, nodeIds: this.#slots.map((s) => s.nodeId), ports: this.#listening },
      'stratum processes serving',
    );
  }

  /** The ports as bound (the same in every child). */
  listening(): ListeningPort[] {
    return this.#listening;
  }

  /** Each child as the operator sees it; `sessions` is as of its last report (0 before the first). */
  children(): StratumProcessView[] {
    return this.#slots.map((slot) => ({
      index: slot.index,
      nodeId: slot.nodeId,
      pid: slot.worker?.process.pid ?? null,
      state: slot.state,
      restarts: slot.restarts,
      sessions: slot.stats?.backend.sessions ?? 0,
    }));
  }

  /**
   * The last numbers of every serving child, added up, plus the counters of children that exited,
   * and the peers this process drops.
   */
  stats(): ChildStats {
    const reported: ChildStats[] = this.#retired === null ? [] : [this.#retired];
    for (const slot of this.#slots) if (slot.stats !== null) reported.push(slot.stats);
    const sum = sumChildStats(reported);
    return this.#floods?.withDropped(sum) ?? sum;
  }

  /** Stratum connections open on the host, as admitted by this process (see HostConnectionCounts). */
  connectionCount(): number {
    return this.#connections.total;
  }

  /** What the API, metrics and control socket read: the children as one stratum role. */
  surface(): StratumSurface {
    return surfaceOfProcessGroup(this);
  }

  /** Asks every child to close its miners and flush its shares; SIGKILL after stopTimeoutMs. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#unsubscribeBans();
    await Promise.all(
      this.#slots.map(async (slot) => {
        clearTimeout(slot.restartTimer);
        const worker = slot.worker;
        if (worker === null) {
          slot.state = 'stopped';
          return;
        }
        this.#send(slot, { kind: 'stop' });
        const killTimer = setTimeout(() => {
          this.#logger.warn(
            { child: slot.index, pid: worker.process.pid },
            'stratum process did not stop; killing it',
          );
          worker.process.kill('SIGKILL');
        }, this.#options.stopTimeoutMs);
        await slot.exited;
        clearTimeout(killTimer);
      }),
    );
    this.#floods?.close();
  }

  #startChild(slot: ChildSlot): Promise<void> {
    const worker = cluster.fork();
    slot.worker = worker;
    slot.state = 'starting';
    slot.stats = null;
    slot.startedAtMs = this.#clock();
    const started = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(slot.bootTimer);
        slot.onStarted = undefined;
        if (error) reject(error);
        else resolve();
      };
      slot.onStarted = settle;
      slot.bootTimer = setTimeout(() => {
        settle(
          new StratumProcessError(
            'CHILD_START_FAILED',
            `stratum process ${slot.index} not booted after ${this.#options.startTimeoutMs} ms`,
            { index: slot.index },
          ),
        );
        // Its exit restarts it (while the pool runs) or ends the failed start.
        worker.process.kill('SIGKILL');
      }, this.#options.startTimeoutMs);
    });
    slot.exited = new Promise<void>((resolve) => {
      worker.once('exit', (code: number | null, signal: string | null) => {
        this.#onExit(slot, worker, code, signal);
        resolve();
      });
    });
    worker.on('message', (message: unknown) => this.#onMessage(slot, message));
    worker.on('error', (error: Error) =>
      this.#logger.warn({ err: error, child: slot.index }, 'stratum process channel error'),
    );
    this.#logger.info(
      { child: slot.index, nodeId: slot.nodeId, pid: worker.process.pid },
      'stratum process starting',
    );
    return started;
  }

  #onMessage(slot: ChildSlot, message: unknown): void {
    if (!isChildMessage(message)) {
      this.#logger.warn({ child: slot.index }, 'unknown message from a stratum process ignored');
      return;
    }
    this.#onChildMessage(slot, message);
  }

  #onChildMessage(slot: ChildSlot, message: ChildMessage): void {
    switch (message.kind) {
      case 'waiting':
        // A 'stop' sent before the child listened was lost: say it again instead of starting it.
        if (this.#stopping) {
          this.#send(slot, { kind: 'stop' });
          return;
        }
        this.#send(slot, {
          kind: 'start',
          config: childConfig(this.#options.config, slot.index, this.#slots.length),
          tls: this.#options.tls,
          index: slot.index,
          snapshotIntervalMs: this.#options.snapshotIntervalMs,
          logLevel: this.#logger.level,
        });
        // Before it opens the ports (it holds its ban registry once it has `start`); the changes
        // from now on reach it as they come (#broadcast).
        this.#sendBans(slot);
        return;
      case 'booted':
        // Too late: the start timeout ran out and killed it.
        if (slot.onStarted === undefined) return;
        clearTimeout(slot.bootTimer);
        slot.state = 'waiting-for-template';
        this.#logger.info({ child: slot.index }, 'stratum process waiting for its first template');
        return;
      case 'ready':
        slot.state = 'serving';
        slot.stats = message.stats;
        if (this.#listening.length === 0) this.#listening = message.listening;
        this.#floods?.childServing(message.listening);
        slot.onStarted?.();
        return;
      case 'stats':
        slot.stats = message.stats;
        return;
      case 'banned':
        // In force here and in the other children at once (its change), then in Redis.
        this.#sharing('ban', this.#bans.ban(message.entry));
        return;
      case 'unban':
        this.#sharing('unban', this.#bans.unban(message.ip));
        return;
      case 'admit': {
        const verdict = this.#connections.admit(slot.index, message.ip);
        this.#floods?.noteAdmission(message.ip, verdict);
        this.#send(slot, { kind: 'admission', requestId: message.requestId, ip: message.ip, verdict });
        return;
      }
      case 'release':
        this.#connections.release(slot.index, message.ip);
        return;
      case 'rpc-call':
        this.#rpcCalls?.report(message.service, message.call);
        return;
      case 'refusals':
        this.#floods?.noteReport(message);
        return;
      case 'start-failed':
        this.#logger.error({ child: slot.index, error: message.message }, 'stratum process could not start');
        slot.onStarted?.(
          new StratumProcessError('CHILD_START_FAILED', `stratum process ${slot.index}: ${message.message}`, {
            index: slot.index,
          }),
        );
        return;
    }
  }

  #onExit(slot: ChildSlot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    this.#connections.releaseChild(slot.index);
    if (slot.stats !== null) {
      const last = countersOnly(slot.stats);
      this.#retired = this.#retired === null ? last : sumChildStats([this.#retired, last]);
    }
    slot.stats = null;
    slot.onStarted?.(
      new StratumProcessError(
        'CHILD_START_FAILED',
        `stratum process ${slot.index} exited (code ${code}, signal ${signal}) before serving`,
        {
          index: slot.index,
          code,
          signal,
        },
      ),
    );
    if (this.#stopping) {
      slot.state = 'stopped';
      this.#logger.info({ child: slot.index, code, signal }, 'stratum process stopped');
      return;
    }
    if (this.#clock() - slot.startedAtMs >= STABLE_RUN_MS) slot.restartDelayMs = this.#options.restartDelayMs;
    const delayMs = slot.restartDelayMs;
    slot.restartDelayMs = Math.min(this.#options.maxRestartDelayMs, delayMs * 2);
    slot.state = 'waiting-to-restart';
    // Exit code 0: it stopped gracefully on its own SIGINT/SIGTERM (a Ctrl-C reaches the whole
    // process group, and may reach a child before this process starts stopping).
    const graceful = code === 0 && signal === null;
    this.#logger[graceful ? 'warn' : 'error'](
      { child: slot.index, nodeId: slot.nodeId, code, signal, restartInMs: delayMs },
      graceful
        ? 'stratum process stopped on a signal of its own; starting it again unless the pool stops'
        : 'stratum process died; its miners reconnect to the others',
    );
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (this.#stopping) return;
      slot.restarts += 1;
      this.#startChild(slot).catch((error: unknown) => {
        // A stop while it waited for a template ends that start too: no failure.
        if (!this.#stopping)
          this.#logger.error({ err: error, child: slot.index }, 'stratum process restart failed');
      });
    }, delayMs);
  }

  /** A child's ban or unban, in force on this host already: a Redis failure only keeps it from the others. */
  #sharing(op: 'ban' | 'unban', stored: Promise<unknown>): void {
    stored.catch((error: unknown) =>
      this.#logger.warn({ err: error, op }, 'ban not shared with the other stratum hosts (Redis)'),
    );
  }

  /** Every ban in force, to a child that starts (taking one it holds again changes nothing). */
  #sendBans(slot: ChildSlot): void {
    this.#bans.list().then(
      (entries) => {
        for (const entry of entries) this.#send(slot, { kind: 'adopt-ban', entry });
      },
      (error: unknown) =>
        this.#logger.warn({ err: error, child: slot.index }, 'bans not readable for a child'),
    );
  }

  /**
   * A ban change, to every child that runs, serving or not: one still waiting for its first
   * template holds the bans it was given at `waiting`, and an unban kept from it would never
   * reach it (the bans in force cannot lift one). Sent before that child's `waiting`, the
   * change is lost or ignored, and is in the full list it gets at `waiting` instead.
   */
  #broadcast(message: ParentMessage): void {
    for (const slot of this.#slots) this.#send(slot, message);
  }

  #send(slot: ChildSlot, message: ParentMessage): void {
    const worker = slot.worker;
    if (worker === null || !worker.isConnected()) return;
    worker.send(message, (error: Error | null) => {
      if (error)
        this.#logger.warn(
          { err: error, child: slot.index, kind: message.kind },
          'message to a stratum process lost',
        );
    });
  }
}
