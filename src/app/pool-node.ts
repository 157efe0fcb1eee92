import { readFile } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import { AddressError, decodeAddress } from '../fuego/address.js';
import { DaemonTemplateSource } from '../pool/daemon-template-source.js';
import { DEFAULT_POOL_BACKEND_OPTIONS, PoolBackend } from '../pool/pool-backend.js';
import { ShareVerifierPool } from '../pow/verifier-pool.js';
import { DaemonClient } from '../rpc/daemon-client.js';
import type { StratumPortOptions } from '../servers/stratum/stratum-options.js';
import { StratumServer } from '../servers/stratum/stratum-server.js';
import { createRedisClient } from '../store/redis-client.js';
import { RedisShareLedger } from '../store/redis-share-ledger.js';
import { expectedCurrencyId } from './network.js';

export interface PoolNodeModules {
  readonly logger: Logger;
  /** PEM certificate and key for TLS ports, when not read from stratum.tls files (the demo). */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/**
 * Composition root of one pool process: builds every part from the validated config, starts
 * them in dependency order and stops them in reverse. Nothing else creates clients or servers.
 */
export class PoolNode {
  private readonly stoppers: Array<{ name: string; stop: () => Promise<void> | void }> = [];

  private constructor(
    readonly config: Readonly<PoolConfig>,
    private readonly logger: Logger,
    readonly daemon: DaemonClient,
    readonly verifier: ShareVerifierPool,
    readonly redis: Redis,
    readonly ledger: RedisShareLedger,
    readonly templates: DaemonTemplateSource,
    readonly backend: PoolBackend,
    readonly stratum: StratumServer,
  ) {}

  static async start(config: Readonly<PoolConfig>, modules: PoolNodeModules): Promise<PoolNode> {
    const logger = modules.logger;
    const poolAddress = requireStandardAddress(config.pool.address);
    const ports = await stratumPorts(config, modules.tls);
    const started: Array<{ name: string; stop: () => Promise<void> | void }> = [];
    const stopStarted = async () => {
      for (const part of started.reverse()) await Promise.resolve(part.stop()).catch(() => undefined);
    };
    try {
      const daemon = new DaemonClient({ ...config.daemon });
      started.push({ name: 'daemon client', stop: () => daemon.close() });

      // Workers load the hasher and run the self-test before anything accepts a connection.
      const verifier = new ShareVerifierPool(
        {
          workers: config.pow.workers,
          implementation: config.pow.implementation,
          maxQueuedJobs: config.pow.maxQueuedJobs,
        },
        { logger: logger.child({ module: 'verifier' }) },
      );
      await verifier.start();
      started.push({ name: 'verifier', stop: () => verifier.close() });
      logger.info(
        { pow: verifier.metrics().implementation, workers: verifier.metrics().workers },
        'share verifier ready',
      );

      const redis = await createRedisClient({ url: config.redis.url }, logger.child({ module: 'redis' }));
      started.push({ name: 'redis', stop: () => void redis.disconnect() });
      const ledger = new RedisShareLedger(
        { keyPrefix: config.redis.keyPrefix, ...config.store },
        { redis, logger: logger.child({ module: 'ledger' }) },
      );
      started.push({ name: 'ledger', stop: () => ledger.close() });

      const templates = new DaemonTemplateSource(
        {
          ...config.templates,
          reserveSize: config.pool.reserveSize,
          walletAddress: poolAddress,
          expectedCurrencyId: expectedCurrencyId(config.network, config.pool.expectedCurrencyId),
          parentStyle: config.pool.parentStyle,
        },
        { daemon, logger: logger.child({ module: 'templates' }) },
      );
      logger.info({ daemon: daemon.endpoint }, 'waiting for the first block template');
      await templates.start();
      started.push({ name: 'templates', stop: () => templates.stop() });

      const backend = new PoolBackend(
        {
          ...DEFAULT_POOL_BACKEND_OPTIONS,
          nodeId: config.pool.nodeId,
          jobsPerSession: config.stratum.jobsPerSession,
          staleGraceMs: config.stratum.staleGraceMs,
          vardiff: config.stratum.vardiff,
          minLoginDifficulty: config.stratum.minLoginDifficulty,
          ban: { ...DEFAULT_POOL_BACKEND_OPTIONS.ban, ...config.stratum.bans },
        },
        { templates, verifier, ledger, daemon, logger: logger.child({ module: 'pool' }) },
      );
      backend.start();
      started.push({ name: 'pool', stop: () => backend.close() });

      const stratum = new StratumServer(
        { ports, limits: config.stratum.limits },
        { backend, logger: logger.child({ module: 'stratum' }) },
      );
      await stratum.start();
      started.push({ name: 'stratum', stop: () => stratum.close() });
      logger.info({ ports: stratum.listening() }, 'stratum listening');

      const node = new PoolNode(config, logger, daemon, verifier, redis, ledger, templates, backend, stratum);
      node.stoppers.push(...started);
      return node;
    } catch (error) {
      await stopStarted();
      throw error;
    }
  }

  /** Ordered shutdown: miners first, then the work in flight, then storage and clients. */
  async stop(): Promise<void> {
    for (const part of this.stoppers.reverse()) {
      try {
        await part.stop();
      } catch (error) {
        this.logger.warn({ err: error, part: part.name }, 'error while stopping');
      }
    }
    this.stoppers.length = 0;
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
    const decoded = decodeAddress(address);
    if (decoded.type !== 'standard') {
      throw new ConfigError(
        'CONFIG_INVALID',
        'invalid configuration:\n  pool.address: must be a standard address (the daemon refuses integrated ones)',
      );
    }
    return address;
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  pool.address: ${error.message}`, {
      issues: [`pool.address: ${error.message}`],
    });
  }
}

async function stratumPorts(
  config: Readonly<PoolConfig>,
  pem: PoolNodeModules['tls'],
): Promise<StratumPortOptions[]> {
  let tls = pem;
  if (!tls && config.stratum.tls && config.stratum.ports.some((p) => p.tls)) {
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
    tls = { cert, key };
  }
  return config.stratum.ports.map((p) => ({
    port: p.port,
    host: p.host,
    difficulty: p.difficulty,
    fixedDifficulty: p.fixedDifficulty,
    solo: p.solo,
    ...(p.tls && tls ? { tls } : {}),
  }));
}
