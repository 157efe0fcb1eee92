import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { Ban, BanChange, BanEntry, BanRegistry } from '../pool/ban-registry.js';
import { LocalBans } from '../pool/local-bans.js';
import { BanListReconciler } from './ban-list-reconciler.js';
import { RedisBanList } from './redis-ban-list.js';

export interface RedisBanRegistryOptions {
  readonly keyPrefix: string;
  /** This process's id on the ban channel (its own announcements are not applied twice). */
  readonly origin: string;
  /** IPv6 peers are banned by their network of this many bits (stratum.ipv6PrefixLength). */
  readonly ipv6PrefixLength: number;
  /** stratum.bans.exemptIps: another host's automatic ban of one of these is not taken here. */
  readonly exemptIps: readonly string[];
  /** How often bans that ran out are removed from Redis and this view is reconciled with the list. */
  readonly pruneIntervalMs?: number;
}

/**
 * The pool's bans with the Redis ban list (`<p>:bans`, see RedisBanList) as the source of truth,
 * one per pool process whatever its roles. Its view (what `isBanned` and `list` answer) is loaded
 * from Redis at start, kept current by the ban channel, and reconciled with Redis after every
 * reconnect of the channel and at every prune (what the channel missed, bans and unbans alike). A
 * ban or unban made here is in force here at once, then stored and announced. If Redis is away,
 * it still holds where it was made (ban() and unban() reject, so the operator hears the rest of
 * the pool did not get it).
 */
export class RedisBanRegistry implements BanRegistry {
  readonly #list: RedisBanList;
  readonly #local: LocalBans;
  readonly #reconciler: BanListReconciler;

  constructor(
    options: RedisBanRegistryOptions,
    modules: { readonly redis: Redis; readonly logger: Logger; readonly clock?: () => number },
  ) {
    const { logger } = modules;
    this.#list = new RedisBanList(
      {
        keyPrefix: options.keyPrefix,
        origin: options.origin,
        ...(options.pruneIntervalMs === undefined ? {} : { pruneIntervalMs: options.pruneIntervalMs }),
      },
      modules,
    );
    this.#local = new LocalBans(
      { ipv6PrefixLength: options.ipv6PrefixLength, exemptIps: options.exemptIps },
      {
        ...(modules.clock ? { clock: modules.clock } : {}),
        onListenerError: (error) => logger.error({ err: error }, 'a ban change listener failed'),
      },
    );
    this.#reconciler = new BanListReconciler(this.#local, modules.clock);
  }

  /**
   * Takes over the bans still running in Redis, then follows the other processes' bans and unbans,
   * reconciled with Redis again whenever the list is read (see BanListReconciler).
   */
  async start(): Promise<void> {
    await this.#list.start({
      adopt: (ban) => void this.#reconciler.adopt(ban),
      lift: (ip) => void this.#reconciler.lift(ip),
      catchUp: (read) => this.#reconciler.catchUp(read),
    });
  }

  stop(): void {
    this.#list.stop();
  }

  async list(): Promise<BanEntry[]> {
    return this.#local.list();
  }

  async ban(ban: Ban): Promise<BanEntry> {
    const { entry, stored } = this.#reconciler.put(ban);
    await this.#list.storeBan(entry);
    stored();
    return entry;
  }

  async unban(ip: string): Promise<boolean> {
    const key = this.#local.keyOf(ip);
    const heldHere = this.#reconciler.lift(key);
    const stored = await this.#list.storeUnban(key);
    return heldHere || stored;
  }

  isBanned(peerKey: string): boolean {
    return this.#local.isBanned(peerKey);
  }

  onChange(listener: (change: BanChange) => void): () => void {
    return this.#local.onChange(listener);
  }
}
