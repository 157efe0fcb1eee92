import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { NodeIdClaim } from '../cluster/node-id-claim.js';
import { RedisTemplateSource } from '../cluster/redis-template-source.js';
import type { PoolConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { BanRegistry } from '../pool/ban-registry.js';
import type { PoolEventBus } from '../pool/events.js';
import { PoolBackend } from '../pool/pool-backend.js';
import { nativeFastHash } from '../pow/native-fast-hash.js';
import type { PowImplementationName } from '../pow/types.js';
import { ShareVerifierPool } from '../pow/verifier-pool.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import type { ServerFloodDrops } from '../servers/flood-drop/flood-drops.js';
import type { ConnectionAdmission } from '../servers/stratum/connection-admission.js';
import { loadSocketWriteBatch, type SocketWriteBatch } from '../servers/stratum/socket-write-batch.js';
import type { StratumPortOptions } from '../servers/stratum/stratum-options.js';
import { StratumServer } from '../servers/stratum/stratum-server.js';
import { HashrateBatcher } from '../store/hashrate/hashrate-batcher.js';
import { HashrateBucketWriter } from '../store/hashrate/hashrate-buckets.js';
import { RedisRecentMiners } from '../store/hashrate/recent-miners-reader.js';
import { RedisShareLedger } from '../store/shares/redis-share-ledger.js';
import { announcingBlocks } from './block-announcing-ledger.js';
import { startFloodDrops } from './flood-drop-start.js';
import type { Part } from './parts.js';
import { replicaAcksOf } from './redis-connection.js';
import { poolBackendOptionsFrom, stratumServerOptionsFrom } from './stratum-options.js';

export interface StratumRoleModules {
  readonly redis: Redis;
  /** submitblock and alias lookups; templates come from the leader through Redis. */
  readonly daemon: DaemonClient;
  readonly events: PoolEventBus;
  readonly logger: Logger;
  readonly ports: StratumPortOptions[];
  /** Rejects if the process must give up waiting for a first template (a fatal leader error, a stop). */
  readonly abandon?: Promise<never>;
  /** The pool's bans (in a stratum child: its parent's, over IPC). */
  readonly bans: BanRegistry;
  /** Applies the connection caps; by default the stratum server counts its own connections. */
  readonly connectionAdmission?: ConnectionAdmission;
  /** Where refusals go instead of this process's own FloodDrops (a stratum child's report to its parent). */
  readonly floodDrops?: ServerFloodDrops;
  /** Stratum connections this process's open files allow (open-files-budget.ts); none: no cap. */
  readonly maxConnectionsInProcess?: number;
}

/** What the stratum role built (for the API's metrics and the demo). */
export interface StratumRole {
  readonly verifier: ShareVerifierPool;
  readonly ledger: RedisShareLedger;
  readonly templates: RedisTemplateSource;
  readonly backend: PoolBackend;
  readonly server: StratumServer;
}

/** The stratum role built, its ports still closed (see prepareStratumRole). */
export interface PreparedStratumRole {
  readonly role: StratumRole;
  /**
   * Waits for the first template (or the `abandon` of the modules), then opens the ports. Until
   * then no miner can connect: there would be no job to give.
   */
  serve(): Promise<void>;
}

/**
 * Builds the stratum role in dependency order, pushing each part onto `parts` as soon as it runs
 * (the caller stops them in reverse, also when a later step fails): node id claim, verifier, share
 * ledger, the leader's templates from Redis, the pool core and the server, not yet listening. The
 * role exists (its counters read zero) while `serve` waits for the first template, so the control
 * socket and the API can start and tell the operator what the process waits for.
 */
export async function prepareStratumRole(
  config: Readonly<PoolConfig>,
  modules: StratumRoleModules,
  parts: Part[],
): Promise<PreparedStratumRole> {
  const { logger, redis } = modules;
  // First, so that a second process with this node id stops before it does anything.
  const claim = await NodeIdClaim.acquire(
    {
      keyPrefix: config.redis.keyPrefix,
      nodeId: config.pool.nodeId,
      ttlMs: config.cluster.leaderLockTtlMs,
      renewIntervalMs: config.cluster.renewIntervalMs,
      holderName: `${hostname()}:${process.pid}`,
    },
    { redis, logger: logger.child({ module: 'node-id' }) },
  );
  // Pushed first, so it is given back last, after the miners and the shares in flight.
  parts.push({ name: 'node id claim', stop: () => claim.release() });
  // Workers load the hasher and run the self-test before anything accepts a connection.
  const verifier = new ShareVerifierPool(
    {
      workers: config.pow.workers,
      implementation: config.pow.implementation,
      maxQueuedJobs: config.pow.maxQueuedJobs,
      maxQueuedJobsPerOwner: config.pow.maxQueuedJobsPerPeer,
    },
    { logger: logger.child({ module: 'verifier' }) },
  );
  await verifier.start();
  parts.push({ name: 'verifier', stop: () => verifier.close() });
  const pow = verifier.metrics();
  logger.info({ pow: pow.implementation, workers: pow.workers }, 'share verifier ready');
  warnWhenPowNotNative(pow.implementation, logger);

  const ledger = startShareLedger(config, { redis, logger }, parts);

  const fastHash = nativeFastHash();
  const templates = new RedisTemplateSource(
    { keyPrefix: config.redis.keyPrefix, ...(fastHash ? { fastHash } : {}) },
    { redis, logger: logger.child({ module: 'templates' }) },
  );
  parts.push({ name: 'templates', stop: () => templates.stop() });
  const first = templates.start();
  // Read by serve; a start stopped before it (a later part failed) must not leave it unhandled.
  first.catch(() => undefined);

  const backend = startPoolBackend(config, modules, { templates, verifier, ledger }, parts);

  const own = modules.floodDrops === undefined ? startFloodDrops(config, logger, 'stratum') : undefined;
  if (own !== undefined) parts.push({ name: 'flood-drops', stop: () => own.close() });
  const floodDrops = modules.floodDrops ?? own;
  const directWrites = config.stratum.directWrites ? batchedSocketWrites(logger) : undefined;
  const server = new StratumServer(stratumServerOptionsFrom(config, modules.ports), {
    backend,
    ...(directWrites === undefined ? {} : { directWrites }),
    ...(floodDrops === undefined ? {} : { floodDrops }),
    logger: logger.child({ module: 'stratum' }),
    ...(modules.connectionAdmission ? { admission: modules.connectionAdmission } : {}),
    ...(modules.maxConnectionsInProcess === undefined
      ? {}
      : { maxConnectionsInProcess: modules.maxConnectionsInProcess }),
  });
  const role = { verifier, ledger, templates, backend, server };
  const serve = async (): Promise<void> => {
    await (modules.abandon ? Promise.race([first, modules.abandon]) : first);
    backend.start();
    await server.start();
    parts.push({ name: 'stratum', stop: () => server.close() });
    logger.info({ ports: server.listening(), nodeId: config.pool.nodeId }, 'stratum listening');
  };
  return { role, serve };
}

/**
 * The pool core, its address cache warmed in the background from the miners Redis saw lately
 * (while the first template is awaited: the start does not wait for it).
 */
function startPoolBackend(
  config: Readonly<PoolConfig>,
  modules: StratumRoleModules,
  built: Pick<StratumRole, 'templates' | 'verifier' | 'ledger'>,
  parts: Part[],
): PoolBackend {
  const { redis, logger } = modules;
  const backend = new PoolBackend(poolBackendOptionsFrom(config), {
    templates: built.templates,
    verifier: built.verifier,
    ledger: announcingBlocks(built.ledger, modules.events),
    daemon: modules.daemon,
    logger: logger.child({ module: 'pool' }),
    bans: modules.bans,
    recentMiners: new RedisRecentMiners({ keyPrefix: config.redis.keyPrefix }, { redis }),
  });
  parts.push({ name: 'pool', stop: () => backend.close() });
  void backend.warmAddresses();
  return backend;
}

/**
 * Warns at start when shares are verified by the TypeScript reference: the pool works, at a
 * tenth of the speed, and an operator should know (an image built without a compiler does this).
 */
export function warnWhenPowNotNative(
  implementation: PowImplementationName | null,
  logger: Pick<Logger, 'warn'>,
): void {
  if (implementation !== 'typescript') return;
  logger.warn(
    { pow: implementation },
    'shares are verified with the TypeScript reference cn/upx2, about 10x slower than the native addon ' +
      '(rebuild it with a C++ toolchain: npm rebuild; FUEGO_POOL_REQUIRE_NATIVE=1 makes its build mandatory)',
  );
}

/** The share ledger, writing the hashrate buckets of each batch it records. */
function startShareLedger(
  config: Readonly<PoolConfig>,
  modules: { readonly redis: Redis; readonly logger: Logger },
  parts: Part[],
): RedisShareLedger {
  const { redis } = modules;
  const hashrate = new HashrateBucketWriter(
    { keyPrefix: config.redis.keyPrefix, maxWorkersPerMiner: config.store.maxWorkersPerMiner },
    { redis },
  );
  const logger = modules.logger.child({ module: 'ledger' });
  const hashrateBatcher = new HashrateBatcher(
    {},
    {
      record: (shares) => hashrate.record(shares),
      onError: (error, shares) => logger.warn({ err: error, shares }, 'hashrate buckets not updated'),
    },
  );
  // Pushed before the ledger, so it stops after it and writes the ledger's last batches.
  parts.push({ name: 'hashrate', stop: () => hashrateBatcher.stop() });
  const replicaAcks = replicaAcksOf(config.redis);
  const ledger = new RedisShareLedger(
    { keyPrefix: config.redis.keyPrefix, ...config.store, ...(replicaAcks ? { replicaAcks } : {}) },
    { redis, logger, onBatchRecorded: (shares) => hashrateBatcher.add(shares) },
  );
  parts.push({ name: 'ledger', stop: () => ledger.close() });
  return ledger;
}

/** The native batched writer for miners' lines, or undefined (and one log line saying why not). */
function batchedSocketWrites(logger: Logger): SocketWriteBatch | undefined {
  const loaded = loadSocketWriteBatch();
  if ('batch' in loaded) return loaded.batch;
  logger.warn({ reason: loaded.unavailable }, 'lines to miners are written through Node');
  return undefined;
}
