import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { RedisEventRelay } from '../cluster/redis-event-relay.js';
import type { PoolConfig } from '../config/schema.js';
import { FuegoPoolError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { BanRegistry } from '../pool/ban-registry.js';
import { createPoolEventBus, type PoolEventBus } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import { RpcCallFanout } from '../rpc/rpc-call-observer.js';
import type { WalletClient } from '../rpc/wallet-client.js';
import type { ListeningPort, StratumServer } from '../servers/stratum/stratum-server.js';
import { daemonClientOf } from './daemon-connection.js';
import { type FatalSignal, fatalSignal } from './fatal-signal.js';
import { FirstTemplateWait, whyNoTemplate } from './first-template-wait.js';
import type { LeaderRole } from './leader-role.js';
import type { OpenFilesPlan } from './open-files-budget.js';
import { startOpenFilesPlan } from './open-files-start.js';
import { type Part, stopParts } from './parts.js';
import { connectRedis } from './redis-connection.js';
import type { PoolRole } from './roles.js';
import { planStart, type TlsPem } from './start-checks.js';
import type { StratumProcessGroup } from './stratum-processes/stratum-process-group.js';
import type { StratumRole } from './stratum-role.js';
import { NO_STRATUM, prepareStratum, type StratumChildModules, type StratumParts } from './stratum-start.js';
import type { StratumSurface } from './stratum-surface.js';
import { walletClientOf } from './wallet-connection.js';

export interface PoolNodeModules {
  readonly logger: Logger;
  /** PEM certificate and key for TLS ports, when not read from stratum.tls files. */
  readonly tls?: TlsPem;
  /** Environment for secrets (FUEGO_POOL_ADMIN_TOKEN); defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The pool's bans; by default this process's own RedisBanRegistry. A stratum child process
   * passes its parent's (ParentBanRegistry).
   */
  readonly bans?: BanRegistry;
  /** A stratum child process's: its parent applies the host's connection caps and drops floods. */
  readonly stratumChild?: StratumChildModules;
  /** This process's open-files limit; by default read from /proc (null: unknown, no cap). */
  readonly openFilesLimit?: number | null;
  /**
   * Aborted when the process is asked to stop (SIGINT/SIGTERM). Before the stratum role serves
   * (waiting for the first template), the start then stops what it started, in the order stop()
   * would, and rejects with STOPPED_WHILE_STARTING.
   */
  readonly shutdown?: AbortSignal;
  /**
   * Called once everything is built and the stratum role starts its wait for the first template,
   * however long that takes (a stratum child tells its parent that it has booted).
   */
  readonly onAwaitingFirstTemplate?: () => void;
  /**
   * What this process's RPC clients report each call attempt to; by default a new one. A stratum
   * child passes one that sends its calls to its parent's metrics.
   */
  readonly rpcCalls?: RpcCallFanout;
}

/** The start did not finish: the process was asked to stop first (see PoolNodeModules.shutdown). */
export class PoolNodeStartError extends FuegoPoolError<'STOPPED_WHILE_STARTING'> {}

/** What every role of a process uses: the RPC clients, Redis, and the relayed event bus. */
interface SharedParts {
  readonly daemon: DaemonClient;
  readonly wallet: WalletClient;
  /** Every attempt of the two clients above, for the API's RPC latency metrics. */
  readonly rpcCalls: RpcCallFanout;
  readonly redis: Redis;
  readonly events: PoolEventBus;
  /** This process's id on the Redis channels it publishes on. */
  readonly origin: string;
}

/** What PoolNode.start built (see the fields of PoolNode). */
interface BuiltNode {
  readonly roles: ReadonlySet<PoolRole>;
  readonly shared: SharedParts;
  readonly bans: BanRegistry;
  readonly stratum: StratumParts;
  readonly leader: LeaderRole | null;
  readonly api: FastifyInstance | null;
}

/** What the API and the control socket of a process reach. */
interface EdgeContext {
  readonly shared: SharedParts;
  readonly bans: BanRegistry;
  readonly stratum: StratumParts;
  readonly leader: LeaderRole | null;
  /** While the stratum role waits for its first template; null without that role. */
  readonly firstTemplate: FirstTemplateWait | null;
  readonly logger: Logger;
}

/**
 * Composition root of one pool process: builds every part of the roles in `config.roles`
 * (default all: stratum, leader and API in one process) from the validated config, starts them in
 * dependency order and stops them in reverse. Nothing else creates clients or servers.
 *
 * Roles share only Redis: the leader (one at a time, by lease) polls the daemon and publishes
 * templates, stratum nodes take them from Redis (also in an all-in-one process, so that a standby
 * process serves the elected leader's templates), and pool events are relayed between processes.
 * Every process holds the pool's ban registry (its control socket bans and unbans through it).
 * With `stratum.processes` > 1 the stratum role runs in that many child processes instead
 * (StratumProcessGroup, each child a stratum-only PoolNode); this process reads them through
 * `stratumSurface`.
 *
 * The control socket and the API start before the stratum role waits for its first template
 * (fuegod down or syncing): `status` and /health then say what the process waits for, and a
 * stop during the wait is an ordinary stop. The stratum ports open only with a template.
 *
 * Each role's modules are loaded when that role starts: a stratum child process then holds only
 * the stratum code, not the leader's, the API's or the control socket's (~19 MB of RSS less in
 * every child).
 */
export class PoolNode {
  readonly #fatal: Promise<Error>;
  readonly roles: ReadonlySet<PoolRole>;
  readonly redis: Redis;
  /** The process's event bus (relayed to and from the other processes). */
  readonly events: PoolEventBus;
  /** The pool's bans, as this process sees them. */
  readonly bans: BanRegistry;
  readonly stratumRole: StratumRole | null;
  /** `stratum.processes` > 1: the stratum role runs in these child processes instead. */
  readonly stratumProcesses: StratumProcessGroup | null;
  /** The stratum role as the API and control socket see it, in-process or in children. */
  readonly stratumSurface: StratumSurface | null;
  readonly leader: LeaderRole | null;
  readonly api: FastifyInstance | null;
  readonly #logger: Logger;
  readonly #parts: Part[];

  private constructor(
    readonly config: Readonly<PoolConfig>,
    logger: Logger,
    parts: Part[],
    built: BuiltNode,
    fatal: Promise<Error>,
  ) {
    this.#logger = logger;
    this.#parts = parts;
    this.#fatal = fatal;
    this.roles = built.roles;
    this.redis = built.shared.redis;
    this.events = built.shared.events;
    this.bans = built.bans;
    this.stratumRole = built.stratum.role;
    this.stratumProcesses = built.stratum.processes;
    this.stratumSurface = built.stratum.surface;
    this.leader = built.leader;
    this.api = built.api;
  }

  static async start(config: Readonly<PoolConfig>, modules: PoolNodeModules): Promise<PoolNode> {
    const { logger } = modules;
    const env = modules.env ?? process.env;
    // Configuration problems fail here, before anything runs.
    const plan = await planStart(config, modules.tls, env);
    const openFiles = startOpenFilesPlan(config, plan, modules.openFilesLimit, {
      logger,
      quiet: modules.stratumChild !== undefined,
    });
    const fatal = fatalSignal();
    const abandon = abandonSignal(fatal, modules.shutdown);
    const parts: Part[] = [];
    try {
      logger.info({ roles: [...plan.roles], nodeId: config.pool.nodeId }, 'starting pool node');
      const rpcCalls = modules.rpcCalls ?? new RpcCallFanout();
      const shared = await startShared(config, { logger, env, rpcCalls }, parts);
      const bans = modules.bans ?? (await startBanRegistry(config, shared, logger, parts));
      const { webhooks, discord = [], telegram = [] } = config.notifications;
      let leader: LeaderRole | null = null;
      // Before the leader, so it stops after it (parts stop in reverse): what the leader's last
      // work publishes while it stops (a payout pass recording its batch) is still sent.
      if (plan.poolAddress !== null && webhooks.length + discord.length + telegram.length > 0) {
        const holdsLease = () => leader?.election.isLeader() === true;
        await startWebhooks(config, { holdsLease, events: shared.events, logger, env }, parts);
      }
      leader =
        plan.poolAddress === null
          ? null
          : await startLeader(config, { shared, logger, poolAddress: plan.poolAddress, fatal }, parts);
      const prepared = plan.roles.has('stratum')
        ? await prepareStratum(
            config,
            { plan, shared, bans, logger, abandon, child: modules.stratumChild, openFiles },
            parts,
          )
        : null;
      const stratum = prepared?.parts ?? NO_STRATUM;
      const firstTemplate =
        prepared === null
          ? null
          : new FirstTemplateWait({ daemonUrl: shared.daemon.endpoint, reason: () => whyNoTemplate(leader) });
      const edges: EdgeContext = { shared, bans, stratum, leader, firstTemplate, logger };
      const edgesFrom = parts.length;
      const api = plan.runApi
        ? await startApi(config, edges, { adminToken: plan.adminToken, openFiles }, parts)
        : null;
      if (config.control.enabled) await startControl(config, edges, parts);
      if (prepared !== null) {
        const edgeCount = parts.length - edgesFrom;
        modules.onAwaitingFirstTemplate?.();
        await prepared.serve();
        firstTemplate?.end();
        // Started before the wait, the API and control socket still stop first (parts stop in reverse).
        parts.push(...parts.splice(edgesFrom, edgeCount));
      }
      const built = { roles: plan.roles, shared, bans, stratum, leader, api };
      return new PoolNode(config, logger, parts, built, fatal.failed);
    } catch (error) {
      await stopParts(parts, logger);
      throw error;
    }
  }

  /** The stratum server of this process (null without the stratum role, or with child processes). */
  get stratum(): StratumServer | null {
    return this.stratumRole?.server ?? null;
  }

  /** The stratum ports as bound, in this process or in its stratum children (empty without the role). */
  stratumListening(): ListeningPort[] {
    return this.stratumSurface?.listening() ?? [];
  }

  /** Resolves with the error if a part hit a fault no retry fixes; the process should stop. */
  failed(): Promise<Error> {
    return this.#fatal;
  }

  /** Ordered shutdown: miners first, then the work in flight, then storage and clients. */
  async stop(): Promise<void> {
    await stopParts(this.#parts, this.#logger);
  }
}

/**
 * Rejects with the first fatal error, or with STOPPED_WHILE_STARTING once `shutdown` aborts: what
 * the stratum role's wait for its first template races.
 */
function abandonSignal(fatal: FatalSignal, shutdown: AbortSignal | undefined): Promise<never> {
  const stopped = new Promise<never>((_, reject) => {
    if (shutdown === undefined) return;
    const stop = () =>
      reject(new PoolNodeStartError('STOPPED_WHILE_STARTING', 'asked to stop before the pool served miners'));
    if (shutdown.aborted) stop();
    else shutdown.addEventListener('abort', stop, { once: true });
  });
  const abandon = Promise.race([fatal.failed.then((error) => Promise.reject(error)), stopped]);
  abandon.catch(() => undefined);
  return abandon;
}

async function startShared(
  config: Readonly<PoolConfig>,
  context: {
    readonly logger: Logger;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly rpcCalls: RpcCallFanout;
  },
  parts: Part[],
): Promise<SharedParts> {
  const { logger, env, rpcCalls } = context;
  const daemon = daemonClientOf(config.daemon, { observe: rpcCalls.observerFor('daemon') });
  const wallet = walletClientOf(config.wallet, env, { retries: 2, observe: rpcCalls.observerFor('wallet') });
  parts.push({
    name: 'rpc clients',
    stop: () => {
      daemon.close();
      wallet.close();
    },
  });

  const redis = await connectRedis(config.redis, env, logger.child({ module: 'redis' }));
  parts.push({ name: 'redis', stop: () => void redis.disconnect() });

  const localEvents = createPoolEventBus((error, name) =>
    logger.warn({ err: error, event: name }, 'event listener failed'),
  );
  const origin = randomUUID();
  const relay = new RedisEventRelay(
    { keyPrefix: config.redis.keyPrefix, origin },
    { redis, local: localEvents, logger: logger.child({ module: 'event-relay' }) },
  );
  await relay.start();
  parts.push({ name: 'event relay', stop: () => relay.stop() });
  return { daemon, wallet, rpcCalls, redis, events: relay.bus, origin };
}

/** The pool's bans in Redis, taken over before any stratum port opens. */
async function startBanRegistry(
  config: Readonly<PoolConfig>,
  shared: SharedParts,
  logger: Logger,
  parts: Part[],
): Promise<BanRegistry> {
  const { RedisBanRegistry } = await import('../cluster/redis-ban-registry.js');
  const registry = new RedisBanRegistry(
    {
      keyPrefix: config.redis.keyPrefix,
      origin: shared.origin,
      ipv6PrefixLength: config.stratum.ipv6PrefixLength,
      exemptIps: config.stratum.bans.exemptIps,
    },
    { redis: shared.redis, logger: logger.child({ module: 'ban-list' }) },
  );
  // Pushed before its start, so that a start that fails half-way is still stopped.
  parts.push({ name: 'ban list', stop: () => registry.stop() });
  await registry.start();
  return registry;
}

async function startLeader(
  config: Readonly<PoolConfig>,
  modules: { shared: SharedParts; logger: Logger; poolAddress: string; fatal: FatalSignal },
  parts: Part[],
): Promise<LeaderRole> {
  const { shared, logger, fatal } = modules;
  const { LeaderRole } = await import('./leader-role.js');
  const leader = new LeaderRole(config, {
    redis: shared.redis,
    daemon: shared.daemon,
    wallet: shared.wallet,
    events: shared.events,
    logger: logger.child({ module: 'leader' }),
    poolAddress: modules.poolAddress,
    nodeName: `${hostname()}:${process.pid}:node${config.pool.nodeId}`,
    onFatal: (error) => {
      logger.fatal({ err: error }, 'leader cannot work; stopping');
      fatal.report(error);
    },
  });
  leader.start();
  parts.push({ name: 'leader', stop: () => leader.stop() });
  return leader;
}

async function startApi(
  config: Readonly<PoolConfig>,
  context: EdgeContext,
  access: { readonly adminToken: string | null; readonly openFiles: OpenFilesPlan },
  parts: Part[],
): Promise<FastifyInstance> {
  const { adminToken, openFiles } = access;
  const { shared, stratum, leader, firstTemplate } = context;
  const { startApiRole } = await import('./api-role.js');
  const served = stratum.role;
  return await startApiRole(
    config,
    {
      redis: shared.redis,
      daemon: shared.daemon,
      wallet: shared.wallet,
      rpcCalls: shared.rpcCalls,
      events: shared.events,
      logger: context.logger,
      adminToken,
      stratum: stratum.surface,
      bans: context.bans,
      ...(openFiles.api === undefined ? {} : { maxConnectionsInProcess: openFiles.api }),
      ...(firstTemplate === null ? {} : { firstTemplateWait: () => firstTemplate.detail() }),
      ...(served !== null
        ? { templateAgeMs: () => served.templates.status().templateAgeMs }
        : leader !== null
          ? { templateAgeMs: () => leader.templates()?.status().templateAgeMs }
          : {}),
    },
    parts,
  );
}

async function startWebhooks(
  config: Readonly<PoolConfig>,
  modules: {
    /** Whether this process holds the leader lease now. */
    holdsLease: () => boolean;
    events: PoolEventBus;
    logger: Logger;
    env: Readonly<Record<string, string | undefined>>;
  },
  parts: Part[],
): Promise<void> {
  const { createWebhookNotifier } = await import('../leader/notifications/webhook-notifier.js');
  const { notificationEventsOf } = await import('../leader/notifications/notification-events.js');
  // Chat messages link blocks and transactions with the explorer templates the dashboard uses.
  const options = { ...config.notifications, explorer: config.api.explorer };
  const notifier = createWebhookNotifier(options, {
    events: notificationEventsOf(modules.events),
    logger: modules.logger.child({ module: 'webhooks' }),
    env: modules.env,
    // Every process sees every event through the relay: only the lease holder sends. The lease,
    // not the term: a stopping term still holds it while its work in flight ends and publishes.
    isActive: modules.holdsLease,
  });
  parts.push({ name: 'webhooks', stop: () => notifier.close() });
}

async function startControl(
  config: Readonly<PoolConfig>,
  context: EdgeContext,
  parts: Part[],
): Promise<void> {
  const { shared, stratum, leader } = context;
  const served = stratum.role;
  const [{ startControlServer }, { createControlStats }, { HashrateReader }, { controlServerOptionsFrom }] =
    await Promise.all([
      import('../servers/control/control-server.js'),
      import('../servers/control/control-stats.js'),
      import('../store/hashrate/hashrate-reader.js'),
      import('./control-options.js'),
    ]);
  const control = await startControlServer(controlServerOptionsFrom(config), {
    backend: stratum.surface?.control.backend ?? null,
    stratum: stratum.surface?.control.stratum ?? null,
    // Whatever the roles of this process: the pool's bans.
    bans: context.bans,
    // The leading term's daemon poller first: it knows when the daemon fails (with why). The
    // stratum role's copy from Redis stays healthy while it has any template.
    templates: () => leader?.templates() ?? served?.templates ?? null,
    leader: leader === null ? null : () => leader.loop(),
    waiting: () => context.firstTemplate?.view() ?? null,
    events: shared.events,
    stats: createControlStats(
      {},
      {
        reader: new HashrateReader(
          { keyPrefix: config.redis.keyPrefix, maxWorkersPerMiner: config.store.maxWorkersPerMiner },
          { redis: shared.redis },
        ),
      },
    ),
    logger: context.logger.child({ module: 'control' }),
  });
  // Stopped first (parts stop in reverse), so no command arrives while the rest shuts down.
  parts.push({ name: 'control socket', stop: () => control.close() });
}
