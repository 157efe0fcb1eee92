import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { BanEntry } from '../pool/ban-registry.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';
import { openSubscriber } from './redis-subscriber.js';

/** ARGV: field, value, field, value...; deletes each field of KEYS[1] that still holds its value. */
const DELETE_UNCHANGED_LUA = `
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
`;

/** Where bans heard from other hosts, or found in Redis at start, are applied. */
export interface BanListSink {
  /** A ban decided elsewhere: refuse the IP and close its sessions, without announcing it again. */
  adopt(entry: BanEntry): void;
  /** Lifted elsewhere (by an operator). */
  lift(ip: string): void;
}

type BanMessage =
  | { readonly origin: string; readonly op: 'ban'; readonly entry: BanEntry }
  | { readonly origin: string; readonly op: 'unban'; readonly ip: string };

/** A ban as stored and sent: remainingSeconds is left out (it is stale by the time it is read). */
type StoredBan = Omit<BanEntry, 'remainingSeconds'>;

/** The entry if `value` is a well-formed stored ban, else null (a bad field is skipped, never trusted). */
export function parseStoredBan(value: unknown): BanEntry | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (
    typeof v['ip'] !== 'string' ||
    v['ip'].length === 0 ||
    v['ip'].length > 64 ||
    typeof v['bannedAtMs'] !== 'number' ||
    typeof v['untilMs'] !== 'number' ||
    !Number.isFinite(v['bannedAtMs']) ||
    !Number.isFinite(v['untilMs']) ||
    typeof v['offences'] !== 'number' ||
    !Number.isInteger(v['offences']) ||
    typeof v['manual'] !== 'boolean' ||
    typeof v['reason'] !== 'string'
  )
    return null;
  return {
    ip: v['ip'],
    bannedAtMs: v['bannedAtMs'],
    untilMs: v['untilMs'],
    remainingSeconds: 0,
    offences: v['offences'],
    manual: v['manual'],
    reason: v['reason'].slice(0, 200),
  };
}

function stored(entry: BanEntry): StoredBan {
  const { remainingSeconds: _remaining, ...rest } = entry;
  return rest;
}

/**
 * One ban list for every stratum host of a pool: each ban (automatic or the operator's) and each
 * unban is written to `<p>:bans` and announced on the channel of that name; every other host
 * applies it, so a miner banned on one node is refused by all of them, and a pool process that
 * starts (or restarts) takes over the bans still running. Best effort like the event relay: if
 * Redis is down, bans still hold on the host that decided them.
 *
 * The stored IPs are the pool's own data in its own Redis; the API shows only their count.
 */
export class RedisBanList {
  readonly keys: ClusterKeys;
  readonly #origin: string;
  readonly #redis: Redis;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #pruneIntervalMs: number;
  #subscriber: Redis | undefined;
  #pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    options: {
      readonly keyPrefix: string;
      readonly origin: string;
      /** How often bans that ran out are removed from Redis (they are ignored before that). */
      readonly pruneIntervalMs?: number;
    },
    modules: { readonly redis: Redis; readonly logger: Logger; readonly clock?: () => number },
  ) {
    this.keys = createClusterKeys(options.keyPrefix);
    this.#origin = options.origin;
    this.#pruneIntervalMs = options.pruneIntervalMs ?? 600_000;
    this.#redis = modules.redis;
    this.#logger = modules.logger;
    this.#clock = modules.clock ?? Date.now;
  }

  /**
   * Applies the bans still running in Redis (dropping those that ran out), then follows the other
   * hosts' bans and unbans. Subscribes first, so nothing announced during the load is missed.
   */
  async start(sink: BanListSink): Promise<void> {
    const subscriber = await openSubscriber(this.#redis, 'fuego-pool-bans', this.#logger);
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.keys.banChannel) this.#onMessage(text, sink);
    });
    await subscriber.subscribe(this.keys.banChannel);

    const running = await this.#prune();
    for (const entry of running) sink.adopt(entry);
    if (running.length > 0)
      this.#logger.info({ bans: running.length }, 'bans still running taken over from Redis');
    // Bans run out by themselves; their fields would pile up (one per banned IP) until a restart.
    this.#pruneTimer = setInterval(() => {
      this.#prune().catch((error: unknown) =>
        this.#logger.debug({ err: error }, 'pruning bans that ran out failed; next time'),
      );
    }, this.#pruneIntervalMs);
    this.#pruneTimer.unref();
  }

  /** Removes the fields of bans that ran out (and malformed ones); returns the running bans. */
  async #prune(): Promise<BanEntry[]> {
    const { running, gone } = readBans(await this.#redis.hgetall(this.keys.bans), this.#clock());
    // Only fields still holding what was read: a host may have banned the IP anew meanwhile.
    if (gone.length > 0) await this.#redis.eval(DELETE_UNCHANGED_LUA, 1, this.keys.bans, ...gone);
    return running;
  }

  /** A ban decided on this host (by its ban policy or its operator); a Redis failure is logged. */
  publishBan(entry: BanEntry): void {
    this.#write('ban', this.storeBan(entry));
  }

  /** An unban by this host's operator; a Redis failure is logged. */
  publishUnban(ip: string): void {
    this.#write('unban', this.storeUnban(ip));
  }

  /** publishBan, resolving once the ban is stored and announced (rejecting if Redis failed). */
  async storeBan(entry: BanEntry): Promise<void> {
    const value = stored(entry);
    await this.#redis.hset(this.keys.bans, entry.ip, JSON.stringify(value));
    await this.#redis.publish(
      this.keys.banChannel,
      JSON.stringify({ origin: this.#origin, op: 'ban', entry: value }),
    );
  }

  /**
   * publishUnban, resolving once the unban is stored and announced (rejecting if Redis failed)
   * with whether a ban of `ip` was still running in Redis.
   */
  async storeUnban(ip: string): Promise<boolean> {
    const replies = await this.#redis.multi().hget(this.keys.bans, ip).hdel(this.keys.bans, ip).exec();
    const [error, text] = replies?.[0] ?? [null, null];
    if (error) throw error;
    await this.#redis.publish(
      this.keys.banChannel,
      JSON.stringify({ origin: this.#origin, op: 'unban', ip }),
    );
    const stored = typeof text === 'string' ? parseStoredBan(safeJson(text)) : null;
    return stored !== null && stored.untilMs > this.#clock();
  }

  /** The bans still running in Redis, longest remaining first. */
  async runningBans(): Promise<BanEntry[]> {
    const { running } = readBans(await this.#redis.hgetall(this.keys.bans), this.#clock());
    return running.sort((a, b) => b.untilMs - a.untilMs);
  }

  stop(): void {
    clearInterval(this.#pruneTimer);
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }

  #write(op: string, done: Promise<unknown>): void {
    done.catch((error: unknown) =>
      this.#logger.warn({ err: error, op }, 'ban not shared with the other stratum hosts (Redis)'),
    );
  }

  #onMessage(text: string, sink: BanListSink): void {
    const message = safeJson(text) as Partial<BanMessage> | null;
    if (message === null || typeof message !== 'object' || typeof message.origin !== 'string') {
      this.#logger.warn('ignored a malformed ban message');
      return;
    }
    if (message.origin === this.#origin) return;
    if (message.op === 'ban') {
      const entry = parseStoredBan(message.entry);
      if (entry === null) this.#logger.warn('ignored a malformed ban message');
      else sink.adopt(entry);
    } else if (message.op === 'unban' && typeof message.ip === 'string') {
      sink.lift(message.ip);
    } else {
      this.#logger.warn('ignored a malformed ban message');
    }
  }
}

/** Bans of the pool still running, as stored in `<p>:bans` (for a node without the stratum role). */
export async function countActiveBans(redis: Redis, keyPrefix: string, now = Date.now()): Promise<number> {
  return readBans(await redis.hgetall(createClusterKeys(keyPrefix).bans), now).running.length;
}

/**
 * The fields of `<p>:bans` sorted out: the bans still running (remainingSeconds as of `now`),
 * and, as field/value pairs, those that ran out or are not well-formed.
 */
function readBans(fields: Record<string, string>, now: number): { running: BanEntry[]; gone: string[] } {
  const running: BanEntry[] = [];
  const gone: string[] = [];
  for (const [ip, text] of Object.entries(fields)) {
    const entry = parseStoredBan(safeJson(text));
    if (entry === null || entry.ip !== ip || entry.untilMs <= now) gone.push(ip, text);
    else running.push({ ...entry, remainingSeconds: Math.ceil((entry.untilMs - now) / 1000) });
  }
  return { running, gone };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
