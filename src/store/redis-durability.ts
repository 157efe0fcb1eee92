import type { Redis } from 'ioredis';
import type { DurabilityBarrier, DurabilityGuarantee } from '../model/payouts/durability-barrier.js';
import { StoreError, toStoreError } from './store-error.js';

/** WAITAOF appeared in Redis 7.2. */
const WAITAOF_SINCE: readonly [number, number] = [7, 2];
/** How long the server's settings are trusted before they are read again. */
const SETTINGS_TTL_MS = 60_000;

export interface RedisDurabilityOptions {
  /** Replicas that must acknowledge (WAIT); 0: rely on the server's own disk. */
  readonly replicas: number;
  readonly timeoutMs: number;
  /**
   * A key of the pool (its hash tag): in Cluster mode the WAIT goes through a pipeline that starts
   * with it, so it reaches the master that holds the pool's slot (and this connection's writes).
   */
  readonly anchorKey: string;
}

export interface ServerSettings {
  readonly aofEnabled: boolean;
  /** null when CONFIG is disabled (managed Redis). */
  readonly appendFsync: string | null;
  readonly rdbSavePoints: boolean | null;
  readonly version: readonly [number, number];
}

/**
 * The durability barrier on Redis. The strongest guarantee the deployment offers is used:
 * replicas (WAIT) when some are required, else the local AOF (WAITAOF on 7.2+, or appendfsync
 * always, where each reply already follows the fsync). Anything else gives no guarantee: an RDB
 * snapshot or an AOF fsynced every second can lose the last writes on a crash.
 */
export class RedisDurability implements DurabilityBarrier {
  readonly #opts: RedisDurabilityOptions;
  readonly #redis: Redis;
  readonly #clock: () => number;
  #settings: { readonly value: ServerSettings; readonly atMs: number } | null = null;

  constructor(
    opts: RedisDurabilityOptions,
    modules: { readonly redis: Redis; readonly clock?: () => number },
  ) {
    this.#opts = opts;
    this.#redis = modules.redis;
    this.#clock = modules.clock ?? Date.now;
  }

  async describe(): Promise<DurabilityGuarantee> {
    if (this.#opts.replicas > 0) return { kind: 'replicas', replicas: this.#opts.replicas };
    return guaranteeOf(await this.#serverSettings());
  }

  async ensureDurable(): Promise<void> {
    const guarantee = await this.describe();
    switch (guarantee.kind) {
      case 'replicas': {
        const acknowledged = Number(
          await this.#anchored('WAIT', [String(guarantee.replicas), this.#timeout()]),
        );
        if (acknowledged < guarantee.replicas) {
          throw notDurable(`only ${acknowledged} of ${guarantee.replicas} replicas acknowledged in time`);
        }
        return;
      }
      case 'aof-waitaof': {
        const reply = (await this.#anchored('WAITAOF', ['1', '0', this.#timeout()])) as unknown[];
        if (Number(reply?.[0]) < 1) throw notDurable('the AOF was not fsynced in time (WAITAOF)');
        return;
      }
      case 'aof-always':
        // Redis fsyncs the AOF before it replies to a write: the write's own reply was the barrier.
        return;
      case 'none':
        throw notDurable(guarantee.detail);
    }
  }

  #timeout(): string {
    return String(this.#opts.timeoutMs);
  }

  /** A keyless command sent behind a read of the anchor key, so Cluster routes it to our master. */
  async #anchored(command: string, args: string[]): Promise<unknown> {
    let replies: Array<[Error | null, unknown]> | null;
    try {
      replies = await this.#redis
        .pipeline()
        .exists(this.#opts.anchorKey)
        .call(command, ...args)
        .exec();
    } catch (error) {
      throw toStoreError(error, command);
    }
    const [error, value] = replies?.[1] ?? [new Error('no reply'), null];
    if (error) throw toStoreError(error, command);
    return value;
  }

  async #serverSettings(): Promise<ServerSettings> {
    const cached = this.#settings;
    if (cached !== null && this.#clock() - cached.atMs < SETTINGS_TTL_MS) return cached.value;
    let replies: Array<[Error | null, unknown]> | null;
    try {
      replies = await this.#redis
        .pipeline()
        .exists(this.#opts.anchorKey)
        .info('persistence')
        .info('server')
        .config('GET', 'appendfsync')
        .config('GET', 'save')
        .exec();
    } catch (error) {
      throw toStoreError(error, 'durability settings');
    }
    const text = (index: number): string => {
      const [error, value] = replies?.[index] ?? [new Error('no reply'), null];
      if (error) throw toStoreError(error, 'durability settings');
      return String(value);
    };
    // CONFIG may be renamed or disabled (managed Redis): then those settings are unknown.
    const config = (index: number): string | null => {
      const [error, value] = replies?.[index] ?? [new Error('no reply'), null];
      return error || !Array.isArray(value) ? null : String(value[1] ?? '');
    };
    const persistence = text(1);
    const server = text(2);
    const save = config(4);
    const value: ServerSettings = {
      aofEnabled: /^aof_enabled:1\r?$/m.test(persistence),
      appendFsync: config(3),
      rdbSavePoints: save === null ? null : save.trim() !== '',
      version: parseVersion(server),
    };
    this.#settings = { value, atMs: this.#clock() };
    return value;
  }
}

/** What a server with these settings guarantees for a write (replicas aside). */
export function guaranteeOf(settings: ServerSettings): DurabilityGuarantee {
  if (settings.aofEnabled) {
    if (atLeast(settings.version, WAITAOF_SINCE)) return { kind: 'aof-waitaof' };
    if (settings.appendFsync === 'always') return { kind: 'aof-always' };
    const fsync = settings.appendFsync ?? 'unknown (CONFIG disabled)';
    return {
      kind: 'none',
      persistence: 'aof',
      detail: `Redis ${settings.version.join('.')} fsyncs its AOF "${fsync}", not before each reply, and has no WAITAOF (7.2+): set appendfsync always, or use replicas (redis.replicaAcks)`,
    };
  }
  if (settings.rdbSavePoints === true) {
    return {
      kind: 'none',
      persistence: 'rdb',
      detail:
        'Redis keeps only RDB snapshots: a crash loses the writes since the last one; turn on appendonly yes with appendfsync always (or use Redis 7.2+), or use replicas (redis.replicaAcks)',
    };
  }
  if (settings.rdbSavePoints === false) {
    return {
      kind: 'none',
      persistence: 'none',
      detail:
        'Redis has no persistence at all (no AOF, no RDB save points): a restart loses every balance and payout record; turn on appendonly yes with appendfsync always',
    };
  }
  return {
    kind: 'none',
    persistence: 'unknown',
    detail:
      'Redis has no AOF and its RDB settings cannot be read (CONFIG disabled): turn on appendonly yes with appendfsync always, or use replicas (redis.replicaAcks)',
  };
}

function notDurable(reason: string): StoreError {
  return new StoreError('NOT_DURABLE', `payout writes are not durable: ${reason}`, { reason });
}

function parseVersion(info: string): readonly [number, number] {
  const match = /^redis_version:(\d+)\.(\d+)/m.exec(info);
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])];
}

function atLeast(version: readonly [number, number], since: readonly [number, number]): boolean {
  return version[0] > since[0] || (version[0] === since[0] && version[1] >= since[1]);
}
