import type { z } from 'zod';
import type { Logger } from '../../log/logger.js';
import type { DaemonInfo } from '../../rpc/daemon-schemas.js';
import type { healthCheckSchema, healthSchema } from './api-schemas.js';
import type { NetworkStatus } from './network-info.js';

export type HealthCheck = z.infer<typeof healthCheckSchema>;
export type HealthView = z.infer<typeof healthSchema>;

/** PING answered within this, or Redis counts as failing for /health. */
const REDIS_PING_TIMEOUT_MS = 1_000;

export interface TemplateHealthStatus {
  readonly templateAgeMs: number | undefined;
  readonly waiting?: string | null;
}

export interface HealthMonitorOptions {
  readonly refreshMs: number;
  /** Daemon data older than this (no successful poll) is failing. */
  readonly maxDaemonAgeMs: number;
  readonly maxTemplateAgeMs: number;
}

export interface HealthMonitorModules {
  /** Pings Redis (PING); /health calls it per request. */
  readonly redisProbe: () => Promise<unknown>;
  readonly network: { status(): NetworkStatus; info(): DaemonInfo | null };
  /**
   * Whether the leader's unlocker would decide blocks on the daemon's chain as the last getinfo
   * shows it: null when it would, else why not (no peers, syncing). Absent: "not-configured"
   * (payments.unlockNeedsDaemonPeers off).
   */
  readonly daemonChainDistrust?: (info: DaemonInfo) => string | null;
  /** e.g. () => walletClient.getStatus(); absent: the wallet is "not-configured" (an API-only node). */
  readonly walletProbe?: () => Promise<unknown>;
  /**
   * Age of the template being mined (DaemonTemplateSource.status()); absent on an API-only node.
   * `waiting`: while a starting process waits for its first template, what for (the check's detail).
   */
  readonly templateStatus?: () => TemplateHealthStatus;
  readonly logger: Logger;
  /** The wall clock: the answer's timestamp. */
  readonly clock: () => number;
  /** Milliseconds that only go forward (monotonicMs): the daemon's and the wallet's ages. */
  readonly elapsedClock: () => number;
}

/**
 * /health: Redis is pinged per request (cheap, and the one dependency every answer needs); the
 * daemon is judged by the network poller's last success and the wallet by a background probe,
 * so /health never calls an RPC service per request. Overall: failing if Redis or the daemon
 * fails, degraded if the wallet, the template or the daemon's chain (no peers or syncing: blocks
 * are not credited) does, ok otherwise.
 */
export class HealthMonitor {
  readonly #options: HealthMonitorOptions;
  readonly #modules: HealthMonitorModules;
  #wallet: { ok: boolean; atElapsedMs: number; detail: string | null } | null = null;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #running: Promise<void> | null = null;

  constructor(options: HealthMonitorOptions, modules: HealthMonitorModules) {
    this.#options = options;
    this.#modules = modules;
  }

  start(): void {
    if (!this.#stopped || this.#modules.walletProbe === undefined) return;
    this.#stopped = false;
    void this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async probeWallet(): Promise<void> {
    const probe = this.#modules.walletProbe;
    if (probe === undefined) return;
    try {
      await probe();
      this.#wallet = { ok: true, atElapsedMs: this.#modules.elapsedClock(), detail: null };
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      this.#wallet = {
        ok: false,
        atElapsedMs: this.#modules.elapsedClock(),
        detail: typeof code === 'string' ? code : 'wallet probe failed',
      };
    }
  }

  async check(): Promise<HealthView> {
    const redis = await this.#checkRedis();
    const elapsedMs = this.#modules.elapsedClock();
    const daemon = this.#checkDaemon(elapsedMs);
    const wallet = this.#checkWallet(elapsedMs);
    const template = this.#checkTemplate();
    const daemonChain = this.#checkDaemonChain(elapsedMs);
    const failing = redis.status === 'failing' || daemon.status === 'failing';
    const degraded = [wallet, template, daemonChain].some((check) => check.status === 'failing');
    return {
      status: failing ? 'failing' : degraded ? 'degraded' : 'ok',
      checks: { redis, daemon, wallet, template, daemonChain },
      timestampMs: this.#modules.clock(),
    };
  }

  async #checkRedis(): Promise<HealthCheck> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('ping timed out')), REDIS_PING_TIMEOUT_MS);
      });
      await Promise.race([this.#modules.redisProbe(), timeout]);
      return { status: 'ok', detail: null, ageMs: 0 };
    } catch {
      return { status: 'failing', detail: 'redis did not answer PING', ageMs: null };
    } finally {
      clearTimeout(timer);
    }
  }

  #checkDaemon(elapsedMs: number): HealthCheck {
    const { lastSuccessElapsedMs, lastError } = this.#modules.network.status();
    if (lastSuccessElapsedMs === null)
      return { status: 'failing', detail: lastError ?? 'not polled yet', ageMs: null };
    const ageMs = Math.max(0, Math.round(elapsedMs - lastSuccessElapsedMs)); // whole ms on the wire
    if (ageMs > this.#options.maxDaemonAgeMs) return { status: 'failing', detail: lastError, ageMs };
    return { status: 'ok', detail: null, ageMs };
  }

  /** The last getinfo as the unlocker judges it (stale data is the daemon check's failure). */
  #checkDaemonChain(elapsedMs: number): HealthCheck {
    const judge = this.#modules.daemonChainDistrust;
    if (judge === undefined) return { status: 'not-configured', detail: null, ageMs: null };
    const info = this.#modules.network.info();
    const { lastSuccessElapsedMs } = this.#modules.network.status();
    if (info === null || lastSuccessElapsedMs === null) {
      return { status: 'failing', detail: 'not polled yet', ageMs: null };
    }
    const ageMs = Math.max(0, Math.round(elapsedMs - lastSuccessElapsedMs));
    const distrust = judge(info);
    if (distrust === null) return { status: 'ok', detail: null, ageMs };
    return { status: 'failing', detail: `${distrust}: blocks are not credited`, ageMs };
  }

  #checkWallet(elapsedMs: number): HealthCheck {
    if (this.#modules.walletProbe === undefined)
      return { status: 'not-configured', detail: null, ageMs: null };
    const wallet = this.#wallet;
    if (wallet === null) return { status: 'failing', detail: 'not probed yet', ageMs: null };
    return {
      status: wallet.ok ? 'ok' : 'failing',
      detail: wallet.detail,
      ageMs: Math.max(0, Math.round(elapsedMs - wallet.atElapsedMs)),
    };
  }

  #checkTemplate(): HealthCheck {
    const provider = this.#modules.templateStatus;
    if (provider === undefined) return { status: 'not-configured', detail: null, ageMs: null };
    const { templateAgeMs: age, waiting } = provider();
    if (age === undefined) return { status: 'failing', detail: waiting ?? 'no template yet', ageMs: null };
    const ageMs = Math.max(0, Math.round(age));
    return ageMs > this.#options.maxTemplateAgeMs
      ? { status: 'failing', detail: 'template is stale', ageMs }
      : { status: 'ok', detail: null, ageMs };
  }

  async #loop(): Promise<void> {
    if (this.#stopped) return;
    this.#running = this.probeWallet();
    await this.#running;
    this.#running = null;
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(), this.#options.refreshMs);
    this.#timer.unref();
  }
}
