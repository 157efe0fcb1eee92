import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { Ban, BanChange, BanEntry, BanRegistry } from '../pool/ban-registry.js';
import { LocalBans } from '../pool/local-bans.js';
import { RedisBanList } from './redis-ban-list.js';

export interface RedisBanRegistryOptions {
  readonly keyPrefix: string;
  /** This process's id on the ban channel (its own announcements are not applied twice). */
  readonly origin: string;
  /** IPv6 peers are banned by their network of this many bits (stratum.ipv6PrefixLength). */
  readonly ipv6PrefixLength: number;
  /** stratum.bans.exemptIps: another host's automatic ban of one of these is not taken here. */
  readonly exemptIps: readonly string[];
  /** How often bans that ran out are removed from Redis. */
  readonly pruneIntervalMs?: number;
}

/**
 * The pool's bans with the Redis ban list (`<p>:bans`, see RedisBanList) as the source of truth,
 * one per pool process whatever its roles. Its view (what `isBanned` and `list` answer) is loaded
 * from Redis at start and kept current by the ban channel; a ban or unban made here is in force
 * here at once, then stored and announced. If Redis is away, it still holds where it was made
 * (ban() and unban() reject, so the operator hears the rest of the pool did not get it).
 */
export class RedisBanRegistry implements BanRegistry {
  readonly #list: RedisBanList;
  readonly #local: LocalBans;

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
  }

  /** Takes over the bans still running in Redis, then follows the other processes' bans and unbans. */
  async start(): Promise<void> {
    await this.#list.start({
      adopt: (ban) => void this.#local.adopt(ban),
      lift: (ip) => void this.#local.remove(ip),
    });
  }

  stop(): void {
    this.#list.stop();
  }

  async list(): Promise<BanEntry[]> {
    return this.#local.list();
  }

  async ban(ban: Ban): Promise<BanEntry> {
    const entry = this.#local.put(ban);
    await this.#list.storeBan(entry);
    return entry;
  }

  async unban(ip: string): Promise<boolean> {
    const key = this.#local.keyOf(ip);
    const heldHere = this.#local.remove(key);
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
