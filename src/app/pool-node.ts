import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import { AddressError, decodeAddress } from '../fuego/address.js';
import { COIN_DECIMALS } from '../fuego/money.js';
import { DaemonTemplateSource } from '../pool/daemon-template-source.js';
import { createPoolEventBus, type PoolEventBus } from '../pool/events.js';
import { minPayoutAtomicOf } from '../pool/payouts/payout-config.js';
import { DEFAULT_POOL_BACKEND_OPTIONS, PoolBackend } from '../pool/pool-backend.js';
import type { BlockCandidate, ShareLedger } from '../pool/share-ledger.js';
import { ShareVerifierPool } from '../pow/verifier-pool.js';
import { DaemonClient } from '../rpc/daemon-client.js';
import { WalletClient } from '../rpc/wallet-client.js';
import { adminTokenFromEnv, parseApiOptions } from '../servers/api/api-options.js';
import { buildApiServer, createApiStores } from '../servers/api/build-api-server.js';
import type { PoolInfo } from '../servers/api/pool-info.js';
import type { StratumPortOptions } from '../servers/stratum/stratum-options.js';
import { StratumServer } from '../servers/stratum/stratum-server.js';
import { HashrateBucketWriter } from '../store/hashrate-buckets.js';
import { createRedisClient } from '../store/redis-client.js';
import { RedisShareLedger } from '../store/redis-share-ledger.js';
import { createBlockUnlocker, createPayoutRunner, LeaderLoop } from './leader-services.js';
import { expectedCurrencyId } from './network.js';

export interface PoolNodeModules {
  readonly logger: Logger;
  /** PEM certificate and key for TLS ports, when not read from stratum.tls files. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Environment for secrets (FUEGO_POOL_ADMIN_TOKEN); defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

interface Part {
  readonly name: string;
  stop(): Promise<void> | void;
}

/**
 * Composition root of one pool process (today every role: stratum, leader, API): builds every part
 * from the validated config, starts them in dependency order and stops them in reverse. Nothing
 * else creates clients or servers.
 */
export class PoolNode {
  private constructor(
    readonly config: Readonly<PoolConfig>,
    private readonly logger: Logger,
    private readonly parts: Part[],
    readonly redis: Redis,
    readonly events: PoolEventBus,
    readonly templates: DaemonTemplateSource,
    readonly backend: PoolBackend,
    readonly stratum: StratumServer,
    readonly leader: LeaderLoop,
    readonly api: FastifyInstance | null,
  ) {}

  static async start(config: Readonly<PoolConfig>, modules: PoolNodeModules): Promise<PoolNode> {
    const { logger } = modules;
    const poolAddress = requireStandardAddress(config.pool.address);
    const ports = await stratumPorts(config, modules.tls);
    const adminToken = adminTokenFromEnv(modules.env ?? process.env);
    const { enabled: apiEnabled, ...apiInput } = config.api;
    const apiOptions = parseApiOptions(apiInput);
    const parts: Part[] = [];
    try {
      const events = createPoolEventBus((error, name) =>
        logger.warn({ err: error, event: name }, 'event listener failed'),
      );
      const daemon = new DaemonClient({ ...config.daemon });
      const wallet = new WalletClient({ ...config.wallet, retries: 2 });
      parts.push({
        name: 'rpc clients',
        stop: () => {
          daemon.close();
          wallet.close();
        },
      });

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
      parts.push({ name: 'verifier', stop: () => verifier.close() });
      const pow = verifier.metrics();
      logger.info({ pow: pow.implementation, workers: pow.workers }, 'share verifier ready');

      const redis = await createRedisClient({ url: config.redis.url }, logger.child({ module: 'redis' }));
      parts.push({ name: 'redis', stop: () => void redis.disconnect() });
      const hashrate = new HashrateBucketWriter({ keyPrefix: config.redis.keyPrefix }, { redis });
      const ledgerLogger = logger.child({ module: 'ledger' });
      const redisLedger = new RedisShareLedger(
        { keyPrefix: config.redis.keyPrefix, ...config.store },
        {
          redis,
          logger: ledgerLogger,
          onBatchRecorded: (shares) =>
            void hashrate.record(shares).catch((error: unknown) => {
              ledgerLogger.warn({ err: error }, 'hashrate buckets not updated');
            }),
        },
      );
      parts.push({ name: 'ledger', stop: () => redisLedger.close() });

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
      parts.push({ name: 'templates', stop: () => templates.stop() });
      templates.onTemplate((active, change) => {
        if (change !== 'new-block') return;
        events.publish('network-block', {
          height: active.height - 1,
          hash: active.prevHash,
          difficulty: active.networkDifficulty,
          timestampMs: active.receivedAtMs,
        });
      });

      const ledger = announcingBlocks(redisLedger, events, () => templates.pollNow());
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
      parts.push({ name: 'pool', stop: () => backend.close() });

      const stratum = new StratumServer(
        { ports, limits: config.stratum.limits },
        { backend, logger: logger.child({ module: 'stratum' }) },
      );
      await stratum.start();
      parts.push({ name: 'stratum', stop: () => stratum.close() });
      logger.info({ ports: stratum.listening() }, 'stratum listening');

      const leaderLogger = logger.child({ module: 'leader' });
      const leader = new LeaderLoop(
        {
          unlockIntervalMs: config.payments.unlockIntervalSec * 1000,
          payoutIntervalMs: config.payments.payouts.enabled
            ? config.payments.payouts.intervalSec * 1000
            : null,
        },
        {
          unlocker: createBlockUnlocker(config, { redis, daemon, logger: leaderLogger }),
          payouts: createPayoutRunner(config, { redis, wallet, daemon, logger: leaderLogger }),
          events,
          logger: leaderLogger,
        },
      );
      leader.start();
      parts.push({ name: 'leader', stop: () => leader.stop() });

      let api: FastifyInstance | null = null;
      if (apiEnabled) {
        api = await buildApiServer(apiOptions, {
          redis,
          stores: createApiStores(config.redis.keyPrefix, redis),
          daemon,
          poolInfo: poolInfoFrom(config, stratum),
          events,
          logger: logger.child({ module: 'api' }),
          adminToken,
          metricsSources: {
            stratum: () => stratum.metrics(),
            backend: () => backend.metrics,
            verifier: () => verifier.metrics(),
            shareLedger: () => redisLedger.metrics(),
            templateAgeMs: () => templates.status().templateAgeMs,
          },
          walletProbe: () => wallet.getStatus(),
          templateStatus: () => templates.status(),
          activeBans: () => backend.listBans().length,
        });
        await api.listen({ host: apiOptions.host, port: apiOptions.port });
        const server = api;
        parts.push({ name: 'api', stop: () => server.close() });
        logger.info({ address: api.addresses() }, 'API listening');
      }
      return new PoolNode(config, logger, parts, redis, events, templates, backend, stratum, leader, api);
    } catch (error) {
      await stopParts(parts, logger);
      throw error;
    }
  }

  /** Ordered shutdown: miners first, then the work in flight, then storage and clients. */
  async stop(): Promise<void> {
    await stopParts(this.parts, this.logger);
  }
}

async function stopParts(parts: Part[], logger: Logger): Promise<void> {
  while (parts.length > 0) {
    const part = parts.pop()!;
    try {
      await part.stop();
    } catch (error) {
      logger.warn({ err: error, part: part.name }, 'error while stopping');
    }
  }
}

/**
 * The ledger, seen by the pool core, with two side effects once a candidate is durable: the
 * `block-found` event, and an immediate template poll so miners leave the solved height at once.
 */
function announcingBlocks(ledger: ShareLedger, events: PoolEventBus, pollNow: () => void): ShareLedger {
  return {
    recordShare: (share) => ledger.recordShare(share),
    async recordBlockCandidate(candidate: BlockCandidate) {
      await ledger.recordBlockCandidate(candidate);
      if (candidate.submitResult === 'rejected') return;
      pollNow();
      events.publish('block-found', {
        height: candidate.height,
        hash: candidate.hash,
        finderAddress: candidate.share.address,
        solo: candidate.share.solo,
        timestampMs: candidate.timestampMs,
      });
    },
  };
}

function poolInfoFrom(config: Readonly<PoolConfig>, stratum: StratumServer): PoolInfo {
  const payments = config.payments;
  const listening = stratum.listening();
  return {
    name: 'fuego-pool',
    ports: config.stratum.ports.map((p, i) => ({
      port: listening[i]?.port ?? p.port,
      difficulty: p.difficulty,
      varDiff: !p.fixedDifficulty,
      tls: p.tls,
      solo: p.solo,
      description: `${p.tls ? 'TLS' : 'TCP'}${p.solo ? ' solo' : ''}, start difficulty ${p.difficulty}`,
    })),
    payments: {
      scheme: payments.scheme,
      pplnsWindowFactor: payments.scheme === 'pplns' ? payments.pplnsWindowFactor : null,
      feePercent: Number(payments.poolFeePercent),
      soloFeePercent: Number(payments.soloFeePercent ?? payments.poolFeePercent),
      minPaymentAtomic: minPayoutAtomicOf(payments.payouts),
      intervalSeconds: payments.payouts.intervalSec,
      unlockDepth: payments.confirmDepth,
      networkFeePaidBy: payments.payouts.feePaidBy,
      transferFeeAtomic: BigInt(payments.payouts.networkFeeAtomic),
    },
    coin: {
      symbol: 'XFG',
      decimals: COIN_DECIMALS,
      blockTargetSeconds: 480,
    },
    version: '0.1.0',
  };
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
