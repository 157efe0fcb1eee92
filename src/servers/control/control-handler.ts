import { canonicalIp } from '../../config/canonical-ip.js';
import { formatAtomic } from '../../fuego/money.js';
import type { Logger } from '../../log/logger.js';
import { type BanRegistry, manualBan } from '../../pool/ban-registry.js';
import type { PoolEventBus } from '../../pool/events.js';
import type { PayoutRunSummary, UpkeepReport } from '../../pool/payouts/payout-reports.js';
import type { PoolBackendMetrics } from '../../pool/pool-backend.js';
import type { StratumMetricsSnapshot } from '../stratum/stratum-metrics.js';
import { ControlError } from './control-errors.js';
import type {
  ControlProgress,
  ControlRequest,
  ControlResultMap,
  PayoutNowView,
  StatusView,
  StratumProcessView,
  TopMinerView,
  UnlockerView,
  WalletOptimizeView,
} from './control-protocol.js';
import { banView, summaryView } from './control-views.js';

/** The counters of the pool core (PoolBackend, or the stratum children's added up). */
export interface ControlBackend {
  readonly metrics: Pick<
    PoolBackendMetrics,
    | 'sharesAccepted'
    | 'sharesStale'
    | 'sharesRejected'
    | 'blocksFound'
    | 'blocksAccepted'
    | 'blocksRejected'
    | 'blockSubmitErrors'
    | 'bansIssued'
  >;
}

export interface ControlStratum {
  metrics(): Pick<StratumMetricsSnapshot, 'connections' | 'byPort' | 'sessions'>;
  /** Present when the stratum role runs in child processes (`stratum.processes` > 1). */
  processes?(): readonly StratumProcessView[];
}

/**
 * The template source this process serves (stratum role: from Redis) or polls (leader term: from
 * the daemon). Both report health, height and age; only the daemon poller has failure details.
 */
export interface ControlTemplates {
  status(): {
    readonly healthy: boolean;
    readonly templateAgeMs: number | undefined;
    readonly height: number | undefined;
    readonly consecutiveFailures?: number;
    readonly lastError?: string | undefined;
  };
}

/** The leader's payout pass (LeaderLoop.payOnce); its summary is printed as the batch table. */
export interface ControlPayouts {
  payOnce(): Promise<PayoutRunSummary | undefined>;
  /** The wallet upkeep on demand (LeaderLoop.optimizeWallet); absent: wallet-optimize is unavailable. */
  optimizeWallet?(): Promise<UpkeepReport>;
  /** The term's last unlock run (LeaderLoop.unlockStatus), for `status`. */
  unlockStatus?(): UnlockerView;
}

/** Hashrates from the statistics store (see createControlStats). */
export interface ControlStats {
  poolHashrate(windowMs: number): Promise<{ hashrate: number; miners: number; workers: number }>;
  topMiners(limit: number, windowMs: number): Promise<TopMinerView[]>;
}

export interface ControlHandlerOptions {
  readonly hashrateWindowMs: number;
  readonly version: string;
  /** Interval of the `running` progress events during payout-now (they also keep the client's idle timer alive). */
  readonly heartbeatMs: number;
  /**
   * The IPv6 network sizes a ban can name: the peer network (stratum.ipv6PrefixLength) and the
   * aggregate (stratum.limits.ipv6AggregatePrefixLength). A ban of any other size would match no one.
   */
  readonly banPrefixLengths: readonly number[];
}

/**
 * What the control socket reaches in this process. Roles decide what exists: without the stratum
 * role there are no share counters or connection count; without the leader role no payouts; a
 * leader standing by (another process holds the lease) has no payout loop until it wins. The ban
 * commands go to the pool's ban registry, which every pool process has. `waiting`: StatusView's.
 */
export interface ControlHandlerModules {
  /** The stratum role's pool core; null without that role. */
  readonly backend: ControlBackend | null;
  /** The pool's bans (see BanRegistry); absent: ban commands are unavailable. */
  readonly bans?: Pick<BanRegistry, 'list' | 'ban' | 'unban'> | null;
  /** The stratum role's server; null without that role. */
  readonly stratum: ControlStratum | null;
  /** The templates served or polled now; null when there are none (API-only, or standing by). */
  readonly templates: () => ControlTemplates | null;
  /**
   * null: this process has no leader role. Otherwise the current term's loop, or null while the
   * process stands by: payout-now then answers PAYOUTS_UNAVAILABLE.
   */
  readonly leader: (() => ControlPayouts | null) | null;
  readonly waiting?: () => StatusView['waiting'];
  /** For payout-now progress: payment-sent events seen while the pass runs. */
  readonly events?: Pick<PoolEventBus, 'subscribe'>;
  readonly stats: ControlStats;
  readonly logger: Logger;
  readonly clock?: () => number;
}

export type ProgressSink = (progress: ControlProgress) => void;

/**
 * What each control request does, without any socket: the server validates a request, hands it
 * here, and turns the result or the ControlError into a reply. Reads are snapshots of in-memory
 * counters (and two Redis reads for hashrates); writes are the ban list and the payout trigger.
 */
export class ControlRequestHandler {
  readonly #options: ControlHandlerOptions;
  readonly #modules: ControlHandlerModules;
  readonly #clock: () => number;
  readonly #startedAtMs: number;
  #payout: Promise<unknown> | undefined;

  constructor(options: ControlHandlerOptions, modules: ControlHandlerModules) {
    this.#options = options;
    this.#modules = modules;
    this.#clock = modules.clock ?? Date.now;
    this.#startedAtMs = this.#clock();
  }

  async handle<T extends ControlRequest['type']>(
    request: Extract<ControlRequest, { type: T }>,
    progress: ProgressSink,
  ): Promise<ControlResultMap[T]> {
    return (await this.#dispatch(request, progress)) as ControlResultMap[T];
  }

  async #dispatch(
    request: ControlRequest,
    progress: ProgressSink,
  ): Promise<ControlResultMap[keyof ControlResultMap]> {
    switch (request.type) {
      case 'status':
        return this.#status();
      case 'bans':
        return { bans: (await this.#banStore(() => this.#bans().list())).map(banView) };
      case 'ban': {
        const bans = this.#bans();
        const ip = requireIp(request.ip, this.#options.banPrefixLengths);
        const reason = request.reason ?? 'manual (control socket)';
        const entry = await this.#banStore(() =>
          bans.ban(manualBan(ip, request.seconds, reason, this.#clock())),
        );
        this.#modules.logger.info(
          { ip, seconds: request.seconds, reason: entry.reason },
          'operator banned an IP',
        );
        return { ban: banView(entry) };
      }
      case 'unban': {
        const bans = this.#bans();
        const ip = requireIp(request.ip);
        const wasBanned = await this.#banStore(() => bans.unban(ip));
        this.#modules.logger.info({ ip, wasBanned }, 'operator lifted a ban');
        return { ip, wasBanned };
      }
      case 'miners': {
        const windowMs = this.#options.hashrateWindowMs;
        const miners = await this.#stats(() => this.#modules.stats.topMiners(request.limit, windowMs));
        return { windowSeconds: windowMs / 1000, miners };
      }
      case 'payout-now':
        return this.#payoutNow(progress);
      case 'wallet-optimize':
        return this.#walletOptimize(progress);
    }
  }

  /**
   * Runs a ban command; a failure of the Redis ban list is named as such (a ban or unban made
   * here still holds in this process, see BanRegistry).
   */
  async #banStore<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ControlError) throw error;
      this.#modules.logger.warn({ err: error }, 'control: the ban list in Redis is not reachable');
      throw new ControlError('BANS_STORE_UNAVAILABLE', undefined, {}, { cause: error });
    }
  }

  #bans(): Pick<BanRegistry, 'list' | 'ban' | 'unban'> {
    const bans = this.#modules.bans ?? null;
    if (bans === null) throw new ControlError('BANS_UNAVAILABLE');
    return bans;
  }

  /** Bans in force, for `status`; 0 (logged) when they cannot be read. */
  async #activeBans(): Promise<number> {
    const { bans, logger } = this.#modules;
    if (!bans) return 0;
    try {
      return (await bans.list()).length;
    } catch (error) {
      logger.warn({ err: error }, 'status: bans not readable');
      return 0;
    }
  }

  async #status(): Promise<StatusView> {
    const { backend, stratum, templates, stats, leader, waiting, logger } = this.#modules;
    const windowMs = this.#options.hashrateWindowMs;
    const pool = await stats.poolHashrate(windowMs).catch((error: unknown) => {
      logger.warn({ err: error }, 'status: pool hashrate not readable');
      return null;
    });
    const template = templates()?.status();
    return {
      version: this.#options.version,
      uptimeSeconds: Math.floor((this.#clock() - this.#startedAtMs) / 1000),
      waiting: waiting?.() ?? null,
      templates:
        template === undefined
          ? null
          : {
              healthy: template.healthy,
              height: template.height ?? null,
              templateAgeMs: template.templateAgeMs ?? null,
              consecutiveFailures: template.consecutiveFailures ?? null,
              lastError: template.lastError ?? null,
            },
      stratum:
        backend === null || stratum === null ? null : stratumView(backend, stratum, await this.#activeBans()),
      pool: pool === null ? null : { ...pool, windowSeconds: windowMs / 1000 },
      payouts: {
        role: leader === null ? 'none' : leader() === null ? 'standby' : 'leading',
        running: this.#payout !== undefined,
      },
      unlocker: leader?.()?.unlockStatus?.() ?? null,
    };
  }

  async #stats<R>(read: () => Promise<R>): Promise<R> {
    try {
      return await read();
    } catch (error) {
      this.#modules.logger.warn({ err: error }, 'control: statistics not readable');
      throw new ControlError('STATS_UNAVAILABLE', undefined, {}, { cause: error });
    }
  }

  /**
   * One pass of the leader's payout runner, now. Single flight per process (with wallet-optimize);
   * a pass the leader's own timer is running holds the Redis payout lock, so this one reports
   * `skipped: locked` rather than paying twice. The pass is never aborted once started (not even
   * when the client goes away): the runner must finish recording what it sent.
   */
  async #payoutNow(progress: ProgressSink): Promise<PayoutNowView> {
    const { events, logger } = this.#modules;
    const leader = this.#leader();
    const startedAtMs = this.#clock();
    let sent = 0;
    const unsubscribe = events?.subscribe('payment-sent', (payment) => {
      sent += 1;
      progress({
        stage: 'batch-sent',
        elapsedMs: this.#clock() - startedAtMs,
        done: sent,
        total: null,
        detail: `batch ${payment.batchId}: ${payment.recipients} miners, ${formatAtomic(payment.amountAtomic)} XFG`,
      });
    });
    logger.info('operator requested a payout pass');
    try {
      const summary = await this.#singleFlight(
        progress,
        'payout pass',
        () => leader.payOnce(),
        () => sent,
      );
      const view = {
        elapsedMs: this.#clock() - startedAtMs,
        batchesSent: sent,
        summary: summary ? summaryView(summary) : null,
      };
      logger.info({ elapsedMs: view.elapsedMs, batchesSent: sent }, 'operator payout pass finished');
      return view;
    } catch (error) {
      if (error instanceof ControlError) throw error;
      logger.error({ err: error }, 'operator payout pass failed');
      throw new ControlError('PAYOUT_FAILED', errorText(error), {}, { cause: error });
    } finally {
      unsubscribe?.();
    }
  }

  /** The leader's wallet upkeep, now (`fuego-pool wallet optimize`); single flight with payout-now. */
  async #walletOptimize(progress: ProgressSink): Promise<WalletOptimizeView> {
    const { logger } = this.#modules;
    const leader = this.#leader();
    if (leader.optimizeWallet === undefined) {
      throw new ControlError('PAYOUTS_UNAVAILABLE', 'its leader has no wallet upkeep');
    }
    const optimize = leader.optimizeWallet.bind(leader);
    const startedAtMs = this.#clock();
    logger.info('operator requested a wallet optimization');
    try {
      const report = await this.#singleFlight(progress, 'wallet optimization', optimize);
      logger.info({ state: report.state, sent: report.sent }, 'operator wallet optimization finished');
      return { ...report, elapsedMs: this.#clock() - startedAtMs };
    } catch (error) {
      if (error instanceof ControlError) throw error;
      logger.error({ err: error }, 'operator wallet optimization failed');
      throw new ControlError('WALLET_OPTIMIZE_FAILED', errorText(error), {}, { cause: error });
    }
  }

  /** The current term's loop, or why there is none. */
  #leader(): ControlPayouts {
    if (this.#modules.leader === null) throw new ControlError('PAYOUTS_UNAVAILABLE', 'it has no leader role');
    const leader = this.#modules.leader();
    if (leader === null) {
      throw new ControlError('PAYOUTS_UNAVAILABLE', 'it stands by; ask the process holding the leader lease');
    }
    return leader;
  }

  /**
   * Runs one money task requested over the socket, one at a time per process, with `started` and
   * a `running` heartbeat every heartbeatMs (which also keeps the client's idle timer alive);
   * `done` counts the task's units so far for the heartbeat.
   */
  async #singleFlight<R>(
    progress: ProgressSink,
    name: string,
    run: () => Promise<R>,
    done: () => number = () => 0,
  ): Promise<R> {
    if (this.#payout !== undefined) throw new ControlError('PAYOUT_IN_PROGRESS');
    const startedAtMs = this.#clock();
    const elapsed = () => this.#clock() - startedAtMs;
    progress({ stage: 'started', elapsedMs: 0, done: 0, total: null, detail: `${name} started` });
    const heartbeat = setInterval(() => {
      progress({
        stage: 'running',
        elapsedMs: elapsed(),
        done: done(),
        total: null,
        detail: `${name} running`,
      });
    }, this.#options.heartbeatMs);
    const task = run();
    this.#payout = task;
    try {
      return await task;
    } finally {
      clearInterval(heartbeat);
      this.#payout = undefined;
    }
  }
}

function stratumView(
  backend: ControlBackend,
  stratum: ControlStratum,
  activeBans: number,
): NonNullable<StatusView['stratum']> {
  const network = stratum.metrics();
  const counters = backend.metrics;
  const ports: Record<string, number> = {};
  for (const [port, counts] of Object.entries(network.byPort)) ports[port] = counts.current;
  return {
    connections: network.connections.current,
    sessions: network.sessions,
    ports,
    shares: {
      accepted: counters.sharesAccepted,
      stale: counters.sharesStale,
      rejected: Object.values(counters.sharesRejected).reduce((sum, n) => sum + (n ?? 0), 0),
    },
    blocks: {
      found: counters.blocksFound,
      accepted: counters.blocksAccepted,
      rejected: counters.blocksRejected,
      submitErrors: counters.blockSubmitErrors,
    },
    bans: { active: activeBans, issued: counters.bansIssued },
    processes: stratum.processes?.() ?? null,
  };
}

/** An IP, or an IPv6 network of one of `prefixLengths` bits when given (bans); INVALID_IP otherwise. */
function requireIp(text: string, prefixLengths?: readonly number[]): string {
  const ip = canonicalIp(text);
  if (ip === null) throw new ControlError('INVALID_IP', undefined, { ip: text });
  const slash = ip.indexOf('/');
  if (prefixLengths !== undefined && slash !== -1 && !prefixLengths.includes(Number(ip.slice(slash + 1)))) {
    throw new ControlError('INVALID_IP', `an IPv6 network ban must be a /${prefixLengths.join(' or /')}`, {
      ip: text,
    });
  }
  return ip;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
