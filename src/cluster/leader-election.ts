import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { defineScript, type ScriptRunner } from '../store/scripts/define-script.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';

/**
 * acquire: takes the lease if nobody holds it, and in the same step draws the next epoch, so the
 * lock and the fencing token the money scripts compare are one key written once (SET NX PX).
 * KEYS: 1 `<p>:leader:token`, 2 `<p>:leader:epoch`, 3 `<p>:leader:holder`.
 * ARGV: 1 lease ms, 2 random token suffix, 3 holder name. Returns the token, or false when held.
 */
const ACQUIRE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = tostring(redis.call('INCR', KEYS[2])) .. '.' .. ARGV[2]
redis.call('SET', KEYS[1], token, 'NX', 'PX', ARGV[1])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[1])
return token
`;

/**
 * renew: extends the lease only if it still holds this token (compare-and-extend).
 * KEYS: 1 token, 2 holder. ARGV: 1 token, 2 lease ms. Returns 1, or 0 when the lease is gone.
 */
const RENEW_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/** release: deletes the lease only if it still holds this token. KEYS/ARGV as renew (no lease). */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
`;

export interface LeaderElectionOptions {
  readonly keyPrefix: string;
  /** Lease length; a crashed leader is replaced about this long after its last renewal. */
  readonly lockTtlMs: number;
  /** How often the leader renews (at most half the lease). */
  readonly renewIntervalMs: number;
  /** How often a standby tries to take the lease; default renewIntervalMs. */
  readonly acquireIntervalMs?: number;
  /** Written to `<p>:leader:holder` and the logs, e.g. "host:pid". */
  readonly nodeName: string;
}

export type LeadershipLossReason =
  /** The renewal found another token (or none): someone else leads, or the lease ran out in Redis. */
  | 'renew-refused'
  /** No renewal succeeded within the lease (Redis unreachable or this process stalled). */
  | 'lease-expired'
  | 'stopped';

export type LeadershipChange =
  | { readonly leader: true; readonly token: string }
  | { readonly leader: false; readonly token: string; readonly reason: LeadershipLossReason };

/**
 * The epoch of a fencing token (`<epoch>.<random>`), or null if it is not one. Epochs only grow
 * while Redis keeps its data; the random part keeps tokens apart if it ever does not.
 */
export function fencingEpoch(token: string): number | null {
  const match = /^(\d+)\.[0-9a-f]+$/.exec(token);
  return match === null ? null : Number(match[1]);
}

/**
 * Chooses the one leader among the processes that run the leader role, through a Redis lease:
 * a standby tries to take it every `acquireIntervalMs`; the leader renews it every
 * `renewIntervalMs` by compare-and-extend. Leadership ends (listeners hear it at once, and
 * `token()` returns null) when a renewal is refused or when no renewal succeeded before the local
 * deadline, which is the send time of the last successful renewal plus the lease minus a margin,
 * so this process stops before Redis lets a successor in. The money scripts check the token
 * anyway: a write still in flight from a leader that lost the lease is refused.
 */
export class LeaderElection {
  readonly keys: ClusterKeys;
  readonly #options: LeaderElectionOptions;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #acquire: ScriptRunner;
  readonly #renew: ScriptRunner;
  readonly #release: ScriptRunner;
  readonly #listeners = new Set<(change: LeadershipChange) => void>();
  #token: string | null = null;
  #leaseEndsAtMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #expiryTimer: NodeJS.Timeout | undefined;
  #steps: Promise<void> = Promise.resolve();
  #running = false;

  constructor(
    options: LeaderElectionOptions,
    modules: { readonly redis: Redis; readonly logger: Logger; readonly clock?: () => number },
  ) {
    this.#options = options;
    this.keys = createClusterKeys(options.keyPrefix);
    this.#logger = modules.logger;
    this.#clock = modules.clock ?? Date.now;
    this.#acquire = defineScript(modules.redis, 'fuegoLeaderAcquire', ACQUIRE_LUA);
    this.#renew = defineScript(modules.redis, 'fuegoLeaderRenew', RENEW_LUA);
    this.#release = defineScript(modules.redis, 'fuegoLeaderRelease', RELEASE_LUA);
  }

  /** Starts trying (at once) and keeps leading or standing by until `stop()`. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops the timers and gives the lease up (a standby takes over without waiting for expiry). */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#steps;
    const token = this.#token;
    if (token === null) return;
    this.#lose('stopped');
    await this.#release({ keys: [this.keys.leaderToken, this.keys.leaderHolder], args: [token] }).catch(
      (error: unknown) =>
        this.#logger.warn({ err: error }, 'leader lease not released; it expires by itself'),
    );
  }

  /** The fencing token while this process leads, else null (the runners' `fencingToken` hook). */
  token(): string | null {
    if (this.#token === null) return null;
    if (this.#clock() >= this.#leaseEndsAtMs) {
      this.#lose('lease-expired');
      return null;
    }
    return this.#token;
  }

  isLeader(): boolean {
    return this.token() !== null;
  }

  /** Listeners are called synchronously on every gain and loss; returns the unsubscribe function. */
  onChange(listener: (change: LeadershipChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One acquire (standby) or renew (leader) attempt; steps never overlap. The timer calls it. */
  step(): Promise<void> {
    const next = this.#steps.then(() => this.#stepOnce());
    this.#steps = next.catch(() => undefined);
    return next;
  }

  async #stepOnce(): Promise<void> {
    if (this.token() === null) await this.#tryAcquire();
    else await this.#tryRenew(this.#token!);
  }

  async #tryAcquire(): Promise<void> {
    const sentAtMs = this.#clock();
    let reply: unknown;
    try {
      reply = await this.#acquire({
        keys: [this.keys.leaderToken, this.keys.leaderEpoch, this.keys.leaderHolder],
        args: [String(this.#options.lockTtlMs), randomBytes(6).toString('hex'), this.#options.nodeName],
      });
    } catch (error) {
      this.#logger.debug({ err: error }, 'leader lease: acquire attempt failed');
      return;
    }
    if (typeof reply !== 'string') return;
    this.#token = reply;
    this.#extendLocalLease(sentAtMs);
    this.#logger.info({ fencingToken: reply, node: this.#options.nodeName }, 'leader lease acquired');
    this.#emit({ leader: true, token: reply });
  }

  async #tryRenew(token: string): Promise<void> {
    const sentAtMs = this.#clock();
    let reply: unknown;
    try {
      reply = await this.#renew({
        keys: [this.keys.leaderToken, this.keys.leaderHolder],
        args: [token, String(this.#options.lockTtlMs)],
      });
    } catch (error) {
      // Unknown outcome: keep leading until the local deadline, which the expiry timer enforces.
      this.#logger.warn({ err: error }, 'leader lease renewal failed; retrying');
      return;
    }
    if (this.#token !== token) return;
    if (Number(reply) === 1) this.#extendLocalLease(sentAtMs);
    else this.#lose('renew-refused');
  }

  #extendLocalLease(sentAtMs: number): void {
    const ttl = this.#options.lockTtlMs;
    // Stop a little before Redis can let a successor in (clock rates differ slightly).
    const margin = Math.min(500, Math.floor(ttl / 10));
    this.#leaseEndsAtMs = sentAtMs + ttl - margin;
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = setTimeout(() => this.token(), Math.max(0, this.#leaseEndsAtMs - this.#clock()));
    this.#expiryTimer.unref?.();
  }

  #lose(reason: LeadershipLossReason): void {
    const token = this.#token;
    if (token === null) return;
    this.#token = null;
    this.#leaseEndsAtMs = 0;
    clearTimeout(this.#expiryTimer);
    const log = reason === 'stopped' ? this.#logger.info : this.#logger.warn;
    log.call(this.#logger, { fencingToken: token, reason }, 'leader lease lost; leader work stops');
    this.#emit({ leader: false, token, reason });
  }

  #emit(change: LeadershipChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#logger.error({ err: error }, 'leadership listener failed');
      }
    }
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      void this.step().finally(() => {
        const leading = this.#token !== null;
        this.#schedule(
          leading
            ? this.#options.renewIntervalMs
            : (this.#options.acquireIntervalMs ?? this.#options.renewIntervalMs),
        );
      });
    }, delayMs);
    this.#timer.unref?.();
  }
}
