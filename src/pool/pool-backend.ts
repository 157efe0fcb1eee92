import { randomInt, randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { RecentMinerAddresses } from '../model/recent-miners.js';
import type { ShareLedger } from '../model/share-ledger.js';
import { monotonicMs } from '../monotonic-clock.js';
import { AddressCache } from './address-cache.js';
import { type AddressWarmupOptions, warmAddressCacheLogged } from './address-warmup.js';
import type { AggregateBanOptions } from './aggregate-bans.js';
import { canMineUpx2 } from './algo-names.js';
import { type AliasDaemon, AliasResolver } from './alias-resolver.js';
import { BanEnforcement } from './ban-enforcement.js';
import type { BanPolicyOptions } from './ban-policy.js';
import type { BanRegistry } from './ban-registry.js';
import { ExtraNonceAllocator, ExtraNonceError } from './extra-nonce.js';
import { JobManager, unusableTemplateReason } from './job-manager.js';
import { loginAddressText, parseLogin } from './login.js';
import { MinerSession } from './miner-session.js';
import { NewAddressChecks } from './new-address-checks.js';
import type { PeerBudgetOptions } from './peer-budget.js';
import { type PoolBackendMetrics, PoolCounters } from './pool-counters.js';
import { type BlockSubmitter, ShareProcessor } from './share-processor.js';
import type { ShareVerifier } from './share-verifier.js';
import { type SharedJobsOptions, sharedJobDue, takesSharedJob } from './shared-jobs.js';
import type {
  ConnectionInfo,
  LoginRequest,
  LoginResult,
  MinerSessionSink,
  StratumBackend,
  StratumJob,
  SubmitRequest,
} from './stratum-backend.js';
import { StratumError, toStratumError } from './stratum-errors.js';
import { TemplateBroadcast } from './template-broadcast.js';
import type { ActiveTemplate, TemplateChange, TemplateSource } from './template-source.js';
import { Vardiff, type VardiffConfig } from './vardiff.js';

export interface PoolBackendOptions {
  /** This stratum node's id (0..65535), the first two bytes of every extra nonce; unique per node. */
  readonly nodeId: number;
  /** Jobs kept per session for late shares. */
  readonly jobsPerSession: number;
  /** After a new block, shares on the previous tip are credited (not submitted) for this long. */
  readonly staleGraceMs: number;
  readonly vardiff: VardiffConfig;
  /** Start difficulty when the port gives none (startDifficulty ≤ 0). */
  readonly defaultDifficulty: number;
  /** A login `+DIFF` below this is raised to it (it is capped at vardiff.maxDifficulty). */
  readonly minLoginDifficulty: number;
  readonly ban: BanPolicyOptions;
  readonly aliasCacheTtlMs: number;
  readonly aliasNegativeCacheTtlMs: number;
  /** After "the daemon has no alias endpoint" we ask again only after this long. */
  readonly aliasUnsupportedRetryMs: number;
  readonly aliasCacheMaxEntries: number;
  /** At most this many sessions get a new job per event-loop turn when a template is broadcast... */
  readonly broadcastChunkSize: number;
  /** ...and a turn stops early after this much time, so sockets and submits keep flowing. */
  readonly broadcastSliceMs: number;
  /** Validated payout addresses remembered (a key check costs ~1.4 ms of event loop per login). */
  readonly addressCacheMaxEntries: number;
  /** Which recent miners' addresses warmAddresses() remembers (at most addressCacheMaxEntries). */
  readonly addressWarmup: Omit<AddressWarmupOptions, 'maxAddresses'>;
  /** Several banned /64s of one IPv6 aggregate network ban the aggregate (aggregate-bans.ts). */
  readonly ipv6AggregateBans: AggregateBanOptions;
  /** New (not remembered) login addresses a peer may have checked: a burst, then so many a minute. */
  readonly newAddressesPerPeer: PeerBudgetOptions;
  /** Which sessions a broadcast gives a job on a blob shared with others. */
  readonly sharedJobs: SharedJobsOptions;
  /** Proxy, NiceHash and shared-blob sessions get a fresh job at least this often (they can run out of nonces). */
  readonly proxyJobRefreshMs: number;
  /** Period of the housekeeping tick (vardiff review of quiet miners, proxy refresh, ban pruning). */
  readonly tickIntervalMs: number;
  /** First extra-nonce counter value; random when absent. */
  readonly extraNonceStart?: number;
}

export interface PoolBackendModules {
  readonly templates: TemplateSource;
  readonly verifier: ShareVerifier;
  readonly ledger: ShareLedger;
  readonly daemon: BlockSubmitter & AliasDaemon;
  readonly logger: Logger;
  /** The wall clock: share timestamps, ban expiry (bans are shared between hosts). */
  readonly clock?: () => number;
  /**
   * A clock that never steps, for intervals: vardiff windows, the stale grace, proxy refreshes, the
   * new-address budget, the alias cache. A wall-clock step (an NTP correction, a resumed VM) would otherwise
   * retarget every miner at once or expire, or extend, the previous tip's grace. Milliseconds;
   * defaults to the process's monotonic clock.
   */
  readonly elapsedClock?: () => number;
  /**
   * The pool's bans: the ban policy's decisions go there, logins and submits ask it, and the
   * sessions of an IP it bans (whoever decided it) are closed.
   */
  readonly bans: BanRegistry;
  /** The miners seen lately, whose addresses warmAddresses() remembers; none: nothing to warm. */
  readonly recentMiners?: RecentMinerAddresses;
}

/** The metrics snapshot's type lives with the counters; callers take it from the pool core. */
export type { PoolBackendMetrics };

const EXTENSIONS: readonly string[] = Object.freeze(['algo', 'keepalive']);

/**
 * The pool core behind the stratum server: logins, per-miner jobs, the share pipeline, vardiff
 * and bans, composed from the modules in this folder. The server owns sockets; this owns rules.
 */
export class PoolBackend implements StratumBackend {
  readonly #options: PoolBackendOptions;
  readonly #modules: PoolBackendModules;
  readonly #clock: () => number;
  readonly #elapsedClock: () => number;
  readonly #logger: Logger;
  readonly #sessions = new Map<string, MinerSession>();
  readonly #jobs: JobManager;
  readonly #shares: ShareProcessor;
  readonly #bans: BanEnforcement;
  readonly #aliases: AliasResolver;
  readonly #addresses: AddressCache;
  readonly #newAddresses: NewAddressChecks;
  readonly #unsubscribe: () => void;
  readonly #broadcast: TemplateBroadcast;
  readonly #counters = new PoolCounters();
  #tickTimer: NodeJS.Timeout | undefined;
  #lastBroadcastTemplateId: number | undefined;
  #closed = false;

  constructor(options: PoolBackendOptions, modules: PoolBackendModules) {
    this.#options = options;
    this.#modules = modules;
    this.#clock = modules.clock ?? Date.now;
    this.#elapsedClock = modules.elapsedClock ?? monotonicMs;
    this.#logger = modules.logger.child({ module: 'pool' });
    const extraNonces = new ExtraNonceAllocator({
      nodeId: options.nodeId,
      counterStart: options.extraNonceStart ?? randomInt(0, 2 ** 31),
    });
    this.#jobs = new JobManager(
      { staleGraceMs: options.staleGraceMs },
      { templates: modules.templates, extraNonces, clock: this.#elapsedClock },
    );
    this.#shares = new ShareProcessor({
      jobs: this.#jobs,
      verifier: modules.verifier,
      ledger: modules.ledger,
      daemon: modules.daemon,
      logger: this.#logger,
      clock: this.#clock,
      elapsedClock: this.#elapsedClock,
      onBlockRefused: (reason) => this.#counters.blockRefused(reason),
    });
    this.#bans = new BanEnforcement(options, {
      bans: modules.bans,
      sessions: this.#sessions,
      verifier: modules.verifier,
      logger: this.#logger,
      clock: this.#clock,
      onBanIssued: () => this.#counters.banIssued(),
    });
    this.#aliases = new AliasResolver(
      {
        ttlMs: options.aliasCacheTtlMs,
        negativeTtlMs: options.aliasNegativeCacheTtlMs,
        unsupportedTtlMs: options.aliasUnsupportedRetryMs,
        maxEntries: options.aliasCacheMaxEntries,
      },
      { daemon: modules.daemon, logger: this.#logger, elapsedClock: this.#elapsedClock },
    );
    this.#addresses = new AddressCache(options.addressCacheMaxEntries);
    this.#newAddresses = new NewAddressChecks(options.newAddressesPerPeer, {
      addresses: this.#addresses,
      peerKey: (ip) => this.#bans.keyOf(ip),
      elapsedClock: this.#elapsedClock,
    });
    this.#broadcast = new TemplateBroadcast(
      { chunkSize: options.broadcastChunkSize, sliceMs: options.broadcastSliceMs },
      {
        sessions: this.#sessions,
        push: (session) => this.#push(session, true),
        logger: this.#logger,
        onDone: (ms) => this.#counters.broadcastDone(ms),
      },
    );
    this.#lastBroadcastTemplateId = modules.templates.current()?.id;
    this.#unsubscribe = modules.templates.onTemplate((template, change) =>
      this.#onTemplate(template, change),
    );
  }

  /** Starts the housekeeping timer (the constructor starts nothing, so tests drive `tick()`). */
  start(): void {
    if (this.#tickTimer !== undefined || this.#closed) return;
    this.#tickTimer = setInterval(() => this.tick(), this.#options.tickIntervalMs);
    this.#tickTimer.unref();
  }

  /** Remembers recent miners' addresses as checked (address-warmup.ts), in the background; never rejects. */
  warmAddresses(): Promise<void> {
    const { recentMiners } = this.#modules;
    if (recentMiners === undefined) return Promise.resolve();
    return warmAddressCacheLogged(
      this.#addresses,
      { ...this.#options.addressWarmup, maxAddresses: this.#options.addressCacheMaxEntries },
      {
        recentMiners,
        logger: this.#logger,
        clock: this.#clock,
        elapsedClock: this.#elapsedClock,
        closed: () => this.#closed,
      },
    );
  }

  /** Stops the timer, the template and ban subscriptions and any broadcast in progress. */
  close(): void {
    this.#closed = true;
    this.#broadcast.cancel();
    if (this.#tickTimer !== undefined) clearInterval(this.#tickTimer);
    this.#tickTimer = undefined;
    this.#unsubscribe();
    this.#bans.close();
  }

  async login(
    request: LoginRequest,
    connection: ConnectionInfo,
    sink: MinerSessionSink,
  ): Promise<LoginResult> {
    try {
      return await this.#login(request, connection, sink);
    } catch (error) {
      const refusal = toStratumError(error, this.#logger, 'login');
      this.#counters.loginRefused(refusal.code);
      throw refusal;
    }
  }

  async #login(
    request: LoginRequest,
    connection: ConnectionInfo,
    sink: MinerSessionSink,
  ): Promise<LoginResult> {
    const ip = connection.remoteAddress;
    if (this.isBanned(ip)) throw new StratumError('BANNED');
    if (!canMineUpx2(request.algo)) throw new StratumError('NO_COMPATIBLE_ALGO');
    const addressText = loginAddressText(request);
    if (addressText !== undefined) await this.#newAddresses.check(addressText, ip);
    const { vardiff: vardiffConfig } = this.#options;
    const parsed = parseLogin(request, {
      minDifficulty: this.#options.minLoginDifficulty,
      maxDifficulty: vardiffConfig.maxDifficulty,
      decodeAddress: (text) => this.#addresses.decode(text),
    });
    if (this.#jobs.current() === undefined) throw new StratumError('NO_TEMPLATE');
    const address =
      parsed.payee.kind === 'address'
        ? parsed.payee.address
        : await this.#aliases.resolve(parsed.payee.alias);
    if (this.#closed) throw new StratumError('NO_TEMPLATE', { reason: 'CLOSED' });

    const portDifficulty =
      connection.startDifficulty >= 1 ? connection.startDifficulty : this.#options.defaultDifficulty;
    const fixed = parsed.fixedDifficulty !== undefined || connection.fixedDifficulty;
    // Whole numbers only: shares are compared with BigInt(difficulty).
    const startDifficulty = Math.max(1, Math.floor(parsed.fixedDifficulty ?? portDifficulty));
    const session = new MinerSession({
      id: randomUUID(),
      connection,
      peer: this.#bans.keyOf(ip),
      sink,
      address,
      worker: parsed.worker,
      solo: parsed.solo || connection.solo,
      agent: typeof request.agent === 'string' ? request.agent.slice(0, 256) : '',
      vardiff: fixed ? undefined : new Vardiff(vardiffConfig, startDifficulty, this.#elapsedClock()),
      fixedDifficulty: startDifficulty,
      jobsPerSession: this.#options.jobsPerSession,
    });
    const job = this.#issue(session);
    this.#sessions.set(session.id, session);
    this.#counters.login();
    this.#logger.debug(
      {
        session: session.id,
        ip,
        worker: session.worker,
        solo: session.solo,
        difficulty: session.lastJobTerms?.difficulty,
      },
      'miner logged in',
    );
    return { sessionId: session.id, job, extensions: EXTENSIONS };
  }

  getJob(sessionId: string): StratumJob {
    const session = this.#session(sessionId);
    return this.#issue(session);
  }

  async submit(sessionId: string, request: SubmitRequest): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) {
      this.#counters.shareRejected('UNAUTHENTICATED');
      throw new StratumError('UNAUTHENTICATED');
    }
    const ip = session.ip;
    if (this.isBanned(ip)) {
      this.#counters.shareRejected('BANNED');
      throw new StratumError('BANNED');
    }
    let outcome: Awaited<ReturnType<ShareProcessor['process']>>;
    try {
      outcome = await this.#shares.process(session, request);
    } catch (error) {
      const refusal = toStratumError(error, this.#logger, 'submit');
      this.#counters.shareRejected(refusal.code);
      if (refusal.code === 'NICEHASH_NONCE') this.#leaveSharedBlobs(session);
      if (this.#bans.record(session, refusal.code)) throw new StratumError('BANNED', { cause: refusal.code });
      throw refusal;
    }
    this.#bans.record(session, 'OK');
    this.#counters.shareAccepted(outcome);
    const retarget = session.vardiff?.recordShare(this.#elapsedClock(), outcome.share.difficulty);
    if (
      retarget !== undefined &&
      this.#sessions.get(session.id) === session &&
      this.#jobDifficultyChanged(session)
    ) {
      this.#push(session);
    }
  }

  keepalive(sessionId: string): void {
    // Only checks the session: the connection's idle timer is what a keepalive resets.
    this.#session(sessionId);
  }

  disconnect(sessionId: string): void {
    this.#sessions.delete(sessionId);
    this.#bans.forgetSession(sessionId);
  }

  canAcceptSubmits(ip: string): boolean {
    return this.#modules.verifier.canAcceptWork(this.#bans.keyOf(ip));
  }

  /** Banned by its own key (an IPv4 address, an IPv6 /64), or by its IPv6 aggregate network. */
  isBanned(ip: string): boolean {
    return this.#bans.isBanned(ip);
  }

  get metrics(): PoolBackendMetrics {
    return this.#counters.snapshot(this.#sessions.size);
  }

  /**
   * Housekeeping, run by the timer: vardiff review for miners that went quiet (a difficulty far
   * too high yields no shares, so no share-driven retarget), fresh jobs for proxy sessions, and
   * ban-list pruning.
   */
  tick(): void {
    const now = this.#elapsedClock();
    const refreshMs = this.#options.proxyJobRefreshMs;
    const due = (s: MinerSession) =>
      sharedJobDue(s, now, refreshMs, this.#options.vardiff.targetShareTimeSec);
    let sharedDue = false;
    for (const session of this.#sessions.values()) {
      const retarget = session.vardiff?.review(now);
      const proxyDue = session.isProxy && now - (session.lastJobTerms?.issuedAtMs ?? now) >= refreshMs;
      if ((retarget !== undefined && this.#jobDifficultyChanged(session)) || proxyDue) this.#push(session);
      else sharedDue ||= due(session);
    }
    // Shared-blob sessions all got their jobs in one broadcast: refresh them in one too, in slices.
    const templateId = this.#lastBroadcastTemplateId;
    if (sharedDue && !this.#broadcast.inProgress && templateId !== undefined) {
      this.#broadcast.start(templateId, 'refresh', due);
    }
    this.#bans.prune();
  }

  #session(sessionId: string): MinerSession {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) throw new StratumError('UNAUTHENTICATED');
    return session;
  }

  /** A job on the current template; `shared`: on a blob shared with other sessions where the session may take one. */
  #issue(session: MinerSession, shared = false): StratumJob {
    let job: StratumJob | undefined;
    const { sharedJobs, vardiff } = this.#options;
    const onSharedBlob = shared && takesSharedJob(session, sharedJobs, vardiff.targetShareTimeSec);
    try {
      job = onSharedBlob ? this.#jobs.issueShared(session) : this.#jobs.issue(session);
    } catch (error) {
      if (!(error instanceof ExtraNonceError)) throw error;
      this.#logger.error({ err: error }, 'template unusable: reserved area too small for the extra nonce');
      throw new StratumError('NO_TEMPLATE', { reason: error.code });
    }
    if (job === undefined) throw new StratumError('NO_TEMPLATE');
    this.#counters.jobIssued(onSharedBlob);
    return job;
  }

  /**
   * A miner that changed the top nonce byte of a shared blob does not keep it, whatever its agent
   * says: from now on it mines blobs of its own, starting with a job at once.
   */
  #leaveSharedBlobs(session: MinerSession): void {
    if (!session.keepsNonceTopByte) return;
    session.keepsNonceTopByte = false;
    this.#logger.warn(
      { session: session.id, agent: session.agent },
      'miner does not keep its top nonce byte: blobs of its own',
    );
    this.#push(session);
  }

  /** A retarget changes nothing for the miner while its jobs stay capped at the network difficulty. */
  #jobDifficultyChanged(session: MinerSession): boolean {
    return this.#jobs.difficultyFor(session) !== session.lastJobTerms?.difficulty;
  }

  /** A new job to a connected session (see #issue); a dead sink only costs a log line. */
  #push(session: MinerSession, shared = false): void {
    try {
      session.sink.sendJob(this.#issue(session, shared));
    } catch (error) {
      this.#logger.debug({ err: error, session: session.id }, 'job push failed');
    }
  }

  #onTemplate(active: ActiveTemplate, change: TemplateChange): void {
    if (this.#closed) return;
    const tracked = this.#jobs.track(active, change);
    if (tracked === undefined) {
      this.#logger.error(
        { templateId: active.id, height: active.height, reason: unusableTemplateReason(active) },
        'template ignored: miners cannot mine it',
      );
      return;
    }
    if (tracked.active.id === this.#lastBroadcastTemplateId) return;
    this.#lastBroadcastTemplateId = tracked.active.id;
    this.#broadcast.start(tracked.active.id, change);
  }
}
