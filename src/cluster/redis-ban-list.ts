import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { Ban } from '../pool/ban-registry.js';
import { type ClusterKeys, createClusterKeys } from './cluster-keys.js';
import { openSubscriber } from './redis-subscriber.js';

/** ARGV: field, value, field, value...; deletes each field of KEYS[1] that still holds its value. */
const DELETE_UNCHANGED_LUA = `
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
`;

/** Where bans heard from other processes, or read from Redis, are applied. */
export interface BanListSink {
  /** A ban decided elsewhere, without announcing it again. */
  adopt(ban: Ban): void;
  /** Lifted elsewhere (by an operator). */
  lift(ip: string): void;
  /**
   * The list is read (at start, after a reconnect, at a prune): `read` sends the read when called
   * and resolves with the running bans; the sink takes them, lifts what the list no longer holds,
   * and resolves with them too (rejects as `read` does).
   */
  catchUp(read: () => Promise<readonly Ban[]>): Promise<readonly Ban[]>;
}

type BanMessage =
  | { readonly origin: string; readonly op: 'ban'; readonly entry: Ban }
  | { readonly origin: string; readonly op: 'unban'; readonly ip: string };

/** The ban if `value` is a well-formed stored ban, else null (a bad field is skipped, never trusted). */
export function parseStoredBan(value: unknown): Ban | null {
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
    offences: v['offences'],
    manual: v['manual'],
    reason: v['reason'].slice(0, 200),
  };
}

/** A ban as stored and sent: nothing but its fields (a BanEntry's remainingSeconds is stale once read). */
function stored(ban: Ban): Ban {
  const { ip, bannedAtMs, untilMs, offences, manual, reason } = ban;
  return { ip, bannedAtMs, untilMs, offences, manual, reason };
}

/**
 * The pool's ban list in Redis, under RedisBanRegistry: each ban (automatic or the operator's) and
 * each unban is written to `<p>:bans` and announced on the channel of that name; every other
 * process applies it, so a miner banned on one node is refused by all of them, and a pool process
 * that starts (or restarts) takes over the bans still running.
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
   * Hands the sink the bans still running in Redis (dropping those that ran out), then follows the
   * other hosts' bans and unbans. Subscribes first, so nothing announced during the load is missed;
   * and has the sink catch up again after every reconnect and prune, since pub/sub drops what is
   * announced while the subscription is down, bans and unbans alike.
   */
  async start(sink: BanListSink): Promise<void> {
    const subscriber = await openSubscriber(this.#redis, 'fuego-pool-bans', this.#logger);
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.keys.banChannel) this.#onMessage(text, sink);
    });
    await subscriber.subscribe(this.keys.banChannel);

    const running = await sink.catchUp(() => this.#prune());
    if (running.length > 0)
      this.#logger.info({ bans: running.length }, 'bans still running taken over from Redis');
    const catchUp = () =>
      sink
        .catchUp(() => this.#prune())
        .catch((error: unknown) => this.#logger.debug({ err: error }, 'reading the bans failed; next time'));
    subscriber.on('ready', () => void catchUp());
    // Bans run out by themselves; their fields would pile up (one per banned IP) until a restart.
    this.#pruneTimer = setInterval(() => void catchUp(), this.#pruneIntervalMs);
    this.#pruneTimer.unref();
  }

  /** Removes the fields of bans that ran out (and malformed ones); returns the running bans. */
  async #prune(): Promise<Ban[]> {
    const { running, gone } = readBans(await this.#redis.hgetall(this.keys.bans), this.#clock());
    // Only fields still holding what was read: a host may have banned the IP anew meanwhile.
    if (gone.length > 0) await this.#redis.eval(DELETE_UNCHANGED_LUA, 1, this.keys.bans, ...gone);
    return running;
  }

  /** A ban made in this process, resolving once it is stored and announced (rejecting if Redis failed). */
  async storeBan(ban: Ban): Promise<void> {
    const value = stored(ban);
    await this.#redis.hset(this.keys.bans, ban.ip, JSON.stringify(value));
    await this.#redis.publish(
      this.keys.banChannel,
      JSON.stringify({ origin: this.#origin, op: 'ban', entry: value }),
    );
  }

  /**
   * An unban made in this process, resolving once it is stored and announced (rejecting if Redis
   * failed) with whether a ban of `ip` was still running in Redis.
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

  stop(): void {
    clearInterval(this.#pruneTimer);
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
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

/**
 * The fields of `<p>:bans` sorted out: the bans still running, and, as field/value pairs, those
 * that ran out or are not well-formed.
 */
function readBans(fields: Record<string, string>, now: number): { running: Ban[]; gone: string[] } {
  const running: Ban[] = [];
  const gone: string[] = [];
  for (const [ip, text] of Object.entries(fields)) {
    const ban = parseStoredBan(safeJson(text));
    if (ban === null || ban.ip !== ip || ban.untilMs <= now) gone.push(ip, text);
    else running.push(ban);
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
