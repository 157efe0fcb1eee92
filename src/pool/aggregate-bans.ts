import type { Logger } from '../log/logger.js';
import type { Ban, BanRegistry } from './ban-registry.js';
import { peerKey } from './peer-key.js';

export interface AggregateBanOptions {
  /** Bits of the aggregate network (stratum.limits.ipv6AggregatePrefixLength, /48 by default). */
  readonly prefixLength: number;
  /** Automatic bans of this many distinct peer networks of one aggregate, in force at once, ban it. */
  readonly threshold: number;
  readonly banSeconds: number;
}

/**
 * IPv6 peers are banned by their /64, but a home line often holds a /56 and a tunnel broker hands
 * out /48s for free: one person can come back from another /64 each time. This watches the bans
 * in force and, when `threshold` automatic bans of distinct /64s of one aggregate network are in
 * force together, calls for a ban of the whole aggregate for `banSeconds`. Manual bans do not
 * count (an operator banning a few neighbours did not find a pattern). Clock-injected.
 */
export class AggregateBanWatch {
  readonly #opts: AggregateBanOptions;
  readonly #clock: () => number;
  /** Aggregate key -> its banned peer keys -> when each ban ends. */
  readonly #banned = new Map<string, Map<string, number>>();

  constructor(opts: AggregateBanOptions, clock: () => number) {
    this.#opts = opts;
    this.#clock = clock;
  }

  /** The aggregate network key of an IPv6 address or key; undefined for IPv4. */
  aggregateOf(ip: string): string | undefined {
    return ip.includes(':') ? peerKey(ip, this.#opts.prefixLength) : undefined;
  }

  /** Whether `key` is an aggregate network key (as this watch bans), not a peer's. */
  isAggregate(key: string): boolean {
    return key.endsWith(`/${this.#opts.prefixLength}`);
  }

  /** A ban now in force; returns the aggregate ban it completes, if any. */
  noteBan(ban: Ban): Ban | undefined {
    const aggregate = this.aggregateOf(ban.ip);
    if (ban.manual || aggregate === undefined || this.isAggregate(ban.ip) || this.#opts.threshold < 1) {
      return undefined;
    }
    const now = this.#clock();
    const peers = this.#banned.get(aggregate) ?? new Map<string, number>();
    this.#banned.set(aggregate, peers);
    peers.set(ban.ip, ban.untilMs);
    for (const [peer, untilMs] of peers) if (untilMs <= now) peers.delete(peer);
    if (peers.size < this.#opts.threshold) return undefined;
    this.#banned.delete(aggregate); // acted on: counting starts again after this ban
    return {
      ip: aggregate,
      bannedAtMs: now,
      untilMs: now + this.#opts.banSeconds * 1000,
      offences: 1,
      manual: false,
      reason: `${peers.size} networks of this /${this.#opts.prefixLength} banned at once`,
    };
  }

  /** Forgets aggregates with no ban left in force. Call it periodically. */
  prune(): void {
    const now = this.#clock();
    for (const [aggregate, peers] of this.#banned) {
      for (const [peer, untilMs] of peers) if (untilMs <= now) peers.delete(peer);
      if (peers.size === 0) this.#banned.delete(aggregate);
    }
  }
}

/** The aggregate ban that `ban` (now in force) completes, issued through `bans` unless already in force. */
export function banAggregateIfDue(
  watch: AggregateBanWatch,
  ban: Ban,
  bans: BanRegistry,
  logger: Logger,
): void {
  const wider = watch.noteBan(ban);
  if (wider === undefined || bans.isBanned(wider.ip)) return;
  logger.warn({ network: wider.ip, reason: wider.reason }, 'IPv6 network banned');
  bans
    .ban(wider)
    .catch((error: unknown) => logger.warn({ err: error, ip: wider.ip }, 'network ban not shared'));
}
