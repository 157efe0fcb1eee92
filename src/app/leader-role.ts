import type { Redis } from 'ioredis';
import { LeaderElection, type LeadershipChange } from '../cluster/leader-election.js';
import { RedisTemplatePublisher } from '../cluster/redis-template-publisher.js';
import { someTargetLists } from '../config/notifications-schema.js';
import type { PoolConfig } from '../config/schema.js';
import { FUEGO_COINBASE_MATURITY_BLOCKS } from '../fuego/coinbase-maturity.js';
import { LeaderLoop } from '../leader/leader-loop.js';
import { DaemonTemplateSource, TemplateSourceError } from '../leader/templates/daemon-template-source.js';
import { UnannouncedBlocksWatch } from '../leader/unannounced-blocks.js';
import { WorkerOfflineWatch } from '../leader/worker-offline-watch.js';
import type { Logger } from '../log/logger.js';
import type { PoolEventBus } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import type { WalletClient } from '../rpc/wallet-client.js';
import { WorkerOfflineScanner } from '../store/hashrate/worker-offline-scan.js';
import { RedisBlockAnnouncements } from '../store/shares/block-announcements.js';
import { createBlockUnlocker, createPayoutPass } from './money-services.js';
import { expectedCurrencyId } from './network.js';

export interface LeaderRoleModules {
  readonly redis: Redis;
  readonly daemon: DaemonClient;
  readonly wallet: WalletClient;
  /** The (relayed) bus: block-found from any stratum node triggers a template poll here. */
  readonly events: PoolEventBus;
  readonly logger: Logger;
  /** Standard address the block rewards go to (validated by the caller). */
  readonly poolAddress: string;
  /** `<p>:leader:holder` and logs. */
  readonly nodeName: string;
  /** A fault no retry fixes (the daemon is on another network): the process should stop. */
  readonly onFatal: (error: Error) => void;
}

/** The leader's work for one lease: started when it is won, stopped when it is lost. */
class LeaderTerm {
  readonly templates: DaemonTemplateSource;
  readonly loop: LeaderLoop;
  readonly #publisher: RedisTemplatePublisher;
  readonly #offs: Array<() => void> = [];
  #stopped = false;

  constructor(
    readonly token: string,
    config: Readonly<PoolConfig>,
    election: LeaderElection,
    modules: LeaderRoleModules,
  ) {
    const { redis, daemon, wallet, events, logger } = modules;
    // Only this term's token: a later term of the same process must not revive this one's work.
    const fencingToken = () => (election.token() === token ? token : null);
    this.templates = new DaemonTemplateSource(
      {
        ...config.templates,
        reserveSize: config.pool.reserveSize,
        walletAddress: modules.poolAddress,
        expectedCurrencyId: expectedCurrencyId(config.network, config.pool.expectedCurrencyId),
        parentStyle: config.pool.parentStyle,
      },
      { daemon, logger: logger.child({ module: 'templates' }) },
    );
    this.#publisher = new RedisTemplatePublisher(
      { keyPrefix: config.redis.keyPrefix },
      { redis, fencingToken, logger: logger.child({ module: 'template-relay' }) },
    );
    this.loop = new LeaderLoop(
      {
        unlockIntervalMs: config.payments.unlockIntervalSec * 1000,
        payoutIntervalMs: config.payments.payouts.enabled ? config.payments.payouts.intervalSec * 1000 : null,
      },
      {
        unlocker: createBlockUnlocker(config, { redis, daemon, logger, fencingToken }),
        ...createPayoutPass(config, { redis, wallet, daemon, logger, fencingToken }),
        ...workerWatchOf(config, { redis, events, logger, fencingToken }),
        announcements: new UnannouncedBlocksWatch({
          ledger: new RedisBlockAnnouncements({ keyPrefix: config.redis.keyPrefix }, { redis }),
          events,
          logger: logger.child({ module: 'unannounced-blocks' }),
          fencingToken,
        }),
        events,
        logger,
      },
    );
  }

  start(modules: LeaderRoleModules): void {
    const { events, logger } = modules;
    this.loop.start();
    this.#offs.push(this.#publisher.attach(this.templates));
    this.#offs.push(this.templates.onConfirmed((active) => this.#publisher.confirm(active)));
    this.#offs.push(
      this.templates.onTemplate((active, change) => {
        if (change !== 'new-block') return;
        events.publish('network-block', {
          height: active.height - 1,
          hash: active.prevHash,
          difficulty: active.networkDifficulty,
          timestampMs: active.receivedAtMs,
        });
      }),
    );
    // A block found on any node: poll at once so every node leaves the solved height now.
    this.#offs.push(events.subscribe('block-found', () => this.templates.pollNow()));
    logger.info({ daemon: modules.daemon.endpoint }, 'waiting for the first block template');
    this.templates.start().catch((error: unknown) => {
      if (this.#stopped) return;
      if (error instanceof TemplateSourceError && error.code === 'WRONG_NETWORK') modules.onFatal(error);
      else logger.error({ err: error }, 'template source failed');
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const off of this.#offs.splice(0)) off();
    this.#publisher.close();
    this.templates.stop();
    await this.loop.stop();
  }
}

/**
 * The worker-offline watch, when a target (webhook, Discord or Telegram) lists `worker-offline`
 * (nothing reads Redis for it otherwise).
 */
function workerWatchOf(
  config: Readonly<PoolConfig>,
  modules: {
    readonly redis: Redis;
    readonly events: PoolEventBus;
    readonly logger: Logger;
    readonly fencingToken: () => string | null;
  },
): { workerWatch?: WorkerOfflineWatch } {
  if (!someTargetLists(config.notifications, 'worker-offline')) return {};
  const { redis, fencingToken } = modules;
  const scanner = new WorkerOfflineScanner({ keyPrefix: config.redis.keyPrefix }, { redis, fencingToken });
  return {
    workerWatch: new WorkerOfflineWatch(
      { offlineMs: config.api.workerOfflineMs },
      { scanner, events: modules.events, logger: modules.logger.child({ module: 'worker-offline' }) },
    ),
  };
}

/**
 * The leader role of one process: stands by until it wins the Redis lease, then polls the
 * daemon for templates (published to the stratum nodes), unlocks blocks and pays, every money
 * write carrying the lease's fencing token; when the lease is lost all of that stops at once and
 * the process stands by again.
 */
export class LeaderRole {
  readonly election: LeaderElection;
  readonly #config: Readonly<PoolConfig>;
  readonly #modules: LeaderRoleModules;
  #term: LeaderTerm | undefined;
  #stopping: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(config: Readonly<PoolConfig>, modules: LeaderRoleModules) {
    this.#config = config;
    this.#modules = modules;
    this.election = new LeaderElection(
      {
        keyPrefix: config.redis.keyPrefix,
        lockTtlMs: config.cluster.leaderLockTtlMs,
        renewIntervalMs: config.cluster.renewIntervalMs,
        nodeName: modules.nodeName,
      },
      { redis: modules.redis, logger: modules.logger },
    );
    this.election.onChange((change) => this.#onChange(change));
  }

  start(): void {
    // A devnet sets its own coinbase maturity (the demo pairs a short one with its confirmDepth).
    const warning =
      this.#config.network === 'devnet' ? null : confirmDepthWarning(this.#config.payments.confirmDepth);
    if (warning !== null)
      this.#modules.logger.warn({ confirmDepth: this.#config.payments.confirmDepth }, warning);
    this.election.start();
  }

  /** The current term's daemon template source (null while standing by). */
  templates(): DaemonTemplateSource | null {
    return this.#term?.templates ?? null;
  }

  /** The current term's leader loop (null while standing by). */
  loop(): LeaderLoop | null {
    return this.#term?.loop ?? null;
  }

  /** Lets the work in flight finish while the lease is still held, then gives the lease up. */
  async stop(): Promise<void> {
    this.#closed = true;
    await this.#stopTerm();
    await this.election.stop();
  }

  #onChange(change: LeadershipChange): void {
    if (change.leader) {
      // A new term waits for the previous one to have stopped writing.
      void this.#stopping.then(() => {
        if (this.#closed || this.election.token() !== change.token) return;
        const term = new LeaderTerm(change.token, this.#config, this.election, this.#modules);
        this.#term = term;
        this.#modules.logger.info(
          { fencingToken: change.token },
          'leading: templates, unlocker and payouts started',
        );
        term.start(this.#modules);
      });
    } else {
      void this.#stopTerm();
    }
  }

  #stopTerm(): Promise<void> {
    const term = this.#term;
    this.#term = undefined;
    if (term === undefined) return this.#stopping;
    this.#stopping = this.#stopping.then(() =>
      term
        .stop()
        .catch((error: unknown) =>
          this.#modules.logger.warn({ err: error }, 'leader term did not stop cleanly'),
        ),
    );
    return this.#stopping;
  }
}

/**
 * A confirmDepth below the coin's coinbase maturity credits rewards the wallet cannot spend yet:
 * while the pool keeps finding blocks, what it owes stays ahead of what the wallet can pay.
 */
export function confirmDepthWarning(confirmDepth: number): string | null {
  if (confirmDepth >= FUEGO_COINBASE_MATURITY_BLOCKS) return null;
  return `payments.confirmDepth ${confirmDepth} is below Fuego's coinbase maturity (${FUEGO_COINBASE_MATURITY_BLOCKS} blocks): rewards are credited before the wallet can spend them, so payouts will be held for "wallet balance too low" while the pool keeps finding blocks; set it to ${FUEGO_COINBASE_MATURITY_BLOCKS} or more`;
}
