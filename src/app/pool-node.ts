import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RedisBanRegistry } from '../cluster/redis-ban-registry.js';
import { RedisEventRelay } from '../cluster/redis-event-relay.js';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import { AddressError, decodeAddress } from '../fuego/address.js';
import { notificationEventsOf } from '../leader/notifications/notification-events.js';
import { createWebhookNotifier } from '../leader/notifications/webhook-notifier.js';
import type { BanRegistry } from '../pool/ban-registry.js';
import { createPoolEventBus, type PoolEventBus } from '../pool/events.js';
import { DaemonClient } from '../rpc/daemon-client.js';
import { WalletClient } from '../rpc/wallet-client.js';
import { adminTokenFromEnv, parseApiOptions } from '../servers/api/api-options.js';
import { startControlServer } from '../servers/control/control-server.js';
import { createControlStats } from '../servers/control/control-stats.js';
import type { ConnectionAdmission } from '../servers/stratum/connection-admission.js';
import type { StratumPortOptions } from '../servers/stratum/stratum-options.js';
import type { ListeningPort, StratumServer } from '../servers/stratum/stratum-server.js';
import { HashrateReader } from '../store/hashrate-reader.js';
import { startApiRole } from './api-role.js';
import { checkConfigAddresses } from './config-addresses.js';
import { LeaderRole } from './leader-role.js';
import { type Part, stopParts } from './parts.js';
import { connectRedis } from './redis-connection.js';
import { type PoolRole, resolveRoles } from './roles.js';
import { stratumProcessCount } from './stratum-processes/process-count.js';
import { StratumProcessGroup } from './stratum-processes/stratum-process-group.js';
import { type StratumRole, startStratumRole } from './stratum-role.js';
import { type StratumSurface, surfaceOfRole } from './stratum-surface.js';

export interface PoolNodeModules {
  readonly logger: Logger;
  /** PEM certificate and key for TLS ports, when not read from stratum.tls files. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Environment for secrets (FUEGO_POOL_ADMIN_TOKEN); defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The pool's bans; by default this process's own RedisBanRegistry. A stratum child process
   * passes its parent's (ParentBanRegistry).
   */
  readonly bans?: BanRegistry;
  /** Applies the stratum connection caps (a stratum child process asks its parent). */
  readonly connectionAdmission?: ConnectionAdmission;
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
 */
export class PoolNode {
  readonly #fatal: Promise<Error>;

  private constructor(
    readonly config: Readonly<PoolConfig>,
    private readonly logger: Logger,
    private readonly parts: Part[],
    readonly roles: ReadonlySet<PoolRole>,
    readonly redis: Redis,
    /** The process's event bus (relayed to and from the other processes). */
    readonly events: PoolEventBus,
    /** The pool's bans, as this process sees them. */
    readonly bans: BanRegistry,
    readonly stratumRole: StratumRole | null,
    /** `stratum.processes` > 1: the stratum role runs in these child processes instead. */
    readonly stratumProcesses: StratumProcessGroup | null,
    /** The stratum role as the API and control socket see it, in-process or in children. */
    readonly stratumSurface: StratumSurface | null,
    readonly leader: LeaderRole | null,
    readonly api: FastifyInstance | null,
    fatal: Promise<Error>,
  ) {
    this.#fatal = fatal;
  }

  static async start(config: Readonly<PoolConfig>, modules: PoolNodeModules): Promise<PoolNode> {
    const { logger } = modules;
    const roles = resolveRoles(config.roles);
    // Configuration problems fail here, before anything runs.
    checkConfigAddresses(config);
    const poolAddress = roles.has('leader') ? requireStandardAddress(config.pool.address) : null;
    const tlsPem = roles.has('stratum') ? await readTlsPem(config, modules.tls) : undefined;
    const ports = roles.has('stratum') ? stratumPorts(config, tlsPem) : [];
    const adminToken = adminTokenFromEnv(modules.env ?? process.env);
    const runApi = roles.has('api') && config.api.enabled;
    if (runApi) {
      const { enabled: _enabled, ...apiInput } = config.api;
      parseApiOptions(apiInput);
    }
    let reportFatal: (error: Error) => void = () => undefined;
    const fatal = new Promise<Error>((resolve) => {
      reportFatal = resolve;
    });
    const parts: Part[] = [];
    try {
      logger.info({ roles: [...roles], nodeId: config.pool.nodeId }, 'starting pool node');
      const daemon = new DaemonClient({ ...config.daemon });
      const wallet = new WalletClient({ ...config.wallet, retries: 2 });
      parts.push({
        name: 'rpc clients',
        stop: () => {
          daemon.close();
          wallet.close();
        },
      });

      const redis = await connectRedis(
        config.redis,
        modules.env ?? process.env,
        logger.child({ module: 'redis' }),
      );
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
      const events = relay.bus;

      let bans = modules.bans;
      if (bans === undefined) {
        const registry = new RedisBanRegistry(
          {
            keyPrefix: config.redis.keyPrefix,
            origin,
            ipv6PrefixLength: config.stratum.ipv6PrefixLength,
            exemptIps: config.stratum.bans.exemptIps,
          },
          { redis, logger: logger.child({ module: 'ban-list' }) },
        );
        // Pushed before its start, so that a start that fails half-way is still stopped.
        parts.push({ name: 'ban list', stop: () => registry.stop() });
        // Before any stratum port opens.
        await registry.start();
        bans = registry;
      }

      let leader: LeaderRole | null = null;
      if (poolAddress !== null) {
        const leaderRole = new LeaderRole(config, {
          redis,
          daemon,
          wallet,
          events,
          logger: logger.child({ module: 'leader' }),
          poolAddress,
          nodeName: `${hostname()}:${process.pid}:node${config.pool.nodeId}`,
          onFatal: (error) => {
            logger.fatal({ err: error }, 'leader cannot work; stopping');
            reportFatal(error);
          },
        });
        leaderRole.start();
        parts.push({ name: 'leader', stop: () => leaderRole.stop() });
        leader = leaderRole;
      }

      let stratum: StratumRole | null = null;
      let stratumProcesses: StratumProcessGroup | null = null;
      let surface: StratumSurface | null = null;
      if (roles.has('stratum')) {
        const abandon = fatal.then((error) => Promise.reject(error));
        abandon.catch(() => undefined);
        const processes = stratumProcessCount(config);
        if (processes > 1) {
          const group = await StratumProcessGroup.start(
            { config, processes, ...(tlsPem ? { tls: tlsPem } : {}) },
            { logger: logger.child({ module: 'stratum-processes' }), abandon, bans },
          );
          parts.push({ name: 'stratum processes', stop: () => group.stop() });
          stratumProcesses = group;
          surface = group.surface();
        } else {
          stratum = await startStratumRole(
            config,
            {
              redis,
              daemon,
              events,
              logger,
              ports,
              abandon,
              bans,
              ...(modules.connectionAdmission ? { connectionAdmission: modules.connectionAdmission } : {}),
            },
            parts,
          );
          surface = surfaceOfRole(stratum);
        }
      }

      let api: FastifyInstance | null = null;
      if (runApi) {
        const served = stratum;
        const polled = leader;
        api = await startApiRole(
          config,
          {
            redis,
            daemon,
            wallet,
            events,
            logger,
            adminToken,
            stratum: surface,
            bans,
            ...(served !== null
              ? { templateAgeMs: () => served.templates.status().templateAgeMs }
              : polled !== null
                ? { templateAgeMs: () => polled.templates()?.status().templateAgeMs }
                : {}),
          },
          parts,
        );
      }
      if (leader !== null && config.notifications.webhooks.length > 0) {
        const leading = leader;
        const notifier = createWebhookNotifier(config.notifications, {
          events: notificationEventsOf(events),
          logger: logger.child({ module: 'webhooks' }),
          env: modules.env ?? process.env,
          // Every process sees every event through the relay: only the acting leader sends.
          isActive: () => leading.loop() !== null,
        });
        parts.push({ name: 'webhooks', stop: () => notifier.close() });
      }
      if (config.control.enabled) {
        const served = stratum;
        const polled = leader;
        const control = await startControlServer(
          { socketPath: config.control.socketPath, hashrateWindowMs: config.control.hashrateWindowMs },
          {
            backend: surface?.control.backend ?? null,
            stratum: surface?.control.stratum ?? null,
            // Whatever the roles of this process: the pool's bans.
            bans,
            templates: () => served?.templates ?? polled?.templates() ?? null,
            leader: polled === null ? null : () => polled.loop(),
            events,
            stats: createControlStats(
              {},
              { reader: new HashrateReader({ keyPrefix: config.redis.keyPrefix }, { redis }) },
            ),
            logger: logger.child({ module: 'control' }),
          },
        );
        // Stopped first (parts stop in reverse), so no command arrives while the rest shuts down.
        parts.push({ name: 'control socket', stop: () => control.close() });
      }
      return new PoolNode(
        config,
        logger,
        parts,
        roles,
        redis,
        events,
        bans,
        stratum,
        stratumProcesses,
        surface,
        leader,
        api,
        fatal,
      );
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
    await stopParts(this.parts, this.logger);
  }
}

function requireStandardAddress(address: string | undefined): string {
  if (address === undefined) {
    throw new ConfigError(
      'CONFIG_INVALID',
      'invalid configuration:\n  pool.address: required to run the pool',
      {
        issues: ['pool.address: required'],
      },
    );
  }
  try {
    if (decodeAddress(address).type === 'standard') return address;
    throw new ConfigError(
      'CONFIG_INVALID',
      'invalid configuration:\n  pool.address: must be a standard address (the daemon refuses integrated ones)',
    );
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  pool.address: ${error.message}`, {
      issues: [`pool.address: ${error.message}`],
    });
  }
}

/** The PEM for TLS ports: given by the caller, or read from stratum.tls when a port has TLS. */
async function readTlsPem(
  config: Readonly<PoolConfig>,
  pem: PoolNodeModules['tls'],
): Promise<PoolNodeModules['tls']> {
  if (pem || !config.stratum.tls || !config.stratum.ports.some((p) => p.tls)) return pem;
  const [cert, key] = await Promise.all([
    readFile(config.stratum.tls.certFile, 'utf8'),
    readFile(config.stratum.tls.keyFile, 'utf8'),
  ]).catch((cause: unknown) => {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `stratum.tls: cannot read certificate or key (${(cause as Error).message})`,
      {},
      { cause },
    );
  });
  return { cert, key };
}

function stratumPorts(config: Readonly<PoolConfig>, tls: PoolNodeModules['tls']): StratumPortOptions[] {
  return config.stratum.ports.map((p) => ({
    port: p.port,
    host: p.host,
    difficulty: p.difficulty,
    fixedDifficulty: p.fixedDifficulty,
    solo: p.solo,
    ...(p.tls && tls ? { tls } : {}),
  }));
}
