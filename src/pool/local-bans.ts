import { type Ban, type BanChange, type BanEntry, banEntry } from './ban-registry.js';
import { peerKey } from './peer-key.js';

export interface LocalBansOptions {
  /** IPv6 peers are banned by their network of this many bits (see peerKey). */
  readonly ipv6PrefixLength: number;
  /** Never banned automatically here, whatever another host decided (stratum.bans.exemptIps). */
  readonly exemptIps: readonly string[];
}

export interface LocalBansModules {
  readonly clock?: () => number;
  /** A change listener threw: the others are still told. */
  readonly onListenerError: (error: unknown) => void;
}

/**
 * The bans in force in one process: the view a BanRegistry answers `isBanned` and `list` from and
 * reports changes of. This process's own bans (its ban policy's, its operator's) replace what is
 * held; bans heard from elsewhere are taken unless a longer one is held, or they are automatic
 * bans of an IP exempt here. Clock-injected; bans that ran out are dropped as they are met.
 */
export class LocalBans {
  readonly #options: LocalBansOptions;
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown) => void;
  readonly #exempt: ReadonlySet<string>;
  /** By peer key. */
  readonly #bans = new Map<string, Ban>();
  readonly #listeners = new Set<(change: BanChange) => void>();

  constructor(options: LocalBansOptions, modules: LocalBansModules) {
    this.#options = options;
    this.#clock = modules.clock ?? Date.now;
    this.#onListenerError = modules.onListenerError;
    this.#exempt = new Set(options.exemptIps);
  }

  /** The key `ip` is banned by: the address, or for IPv6 its network (see peerKey). */
  keyOf(ip: string): string {
    return peerKey(ip, this.#options.ipv6PrefixLength);
  }

  isBanned(key: string): boolean {
    const ban = this.#bans.get(key);
    if (ban === undefined) return false;
    if (ban.untilMs > this.#clock()) return true;
    this.#bans.delete(key);
    return false;
  }

  /** The bans in force, longest remaining first. */
  list(): BanEntry[] {
    const now = this.#clock();
    this.#dropEnded(now);
    return [...this.#bans.values()].map((ban) => banEntry(ban, now)).sort((a, b) => b.untilMs - a.untilMs);
  }

  /** A ban decided in this process (or for it): in force at once, replacing any ban of the IP. */
  put(ban: Ban): BanEntry {
    const now = this.#clock();
    this.#dropEnded(now);
    const held = { ...ban, ip: this.keyOf(ban.ip) };
    this.#bans.set(held.ip, held);
    const entry = banEntry(held, now);
    this.#tell({ kind: 'banned', entry });
    return entry;
  }

  /**
   * A ban decided elsewhere (another host, the parent process, Redis at start), as it was decided.
   * Returns whether it was taken: not when it has ended, a ban at least as long is held, or it is
   * an automatic ban of an IP exempt here (that host's config did not exempt it; this one does).
   */
  adopt(ban: Ban): boolean {
    const now = this.#clock();
    if (ban.untilMs <= now) return false;
    const key = this.keyOf(ban.ip);
    if (!ban.manual && (this.#exempt.has(ban.ip) || this.#exempt.has(key))) return false;
    const held = this.#bans.get(key);
    if (held !== undefined && held.untilMs >= ban.untilMs) return false;
    this.#dropEnded(now);
    const taken = { ...ban, ip: key };
    this.#bans.set(key, taken);
    this.#tell({ kind: 'banned', entry: banEntry(taken, now) });
    return true;
  }

  /** Lifts the ban of `ip` (an address or key); whether one was in force. Listeners are told either way. */
  remove(ip: string): boolean {
    const key = this.keyOf(ip);
    const wasBanned = this.isBanned(key);
    this.#bans.delete(key);
    this.#tell({ kind: 'unbanned', ip: key });
    return wasBanned;
  }

  /** See BanRegistry.onChange: the bans in force first, then every change. */
  onChange(listener: (change: BanChange) => void): () => void {
    this.#listeners.add(listener);
    for (const entry of this.list()) this.#call(listener, { kind: 'banned', entry });
    return () => this.#listeners.delete(listener);
  }

  #tell(change: BanChange): void {
    for (const listener of [...this.#listeners]) this.#call(listener, change);
  }

  #call(listener: (change: BanChange) => void, change: BanChange): void {
    try {
      listener(change);
    } catch (error) {
      this.#onListenerError(error);
    }
  }

  #dropEnded(now: number): void {
    for (const [key, ban] of this.#bans) if (ban.untilMs <= now) this.#bans.delete(key);
  }
}
