/** One ban as decided, stored in Redis and sent between processes. */
export interface Ban {
  /** An IPv4 address, or an IPv6 network such as "2001:db8:1:2::/64" (see peerKey). */
  readonly ip: string;
  readonly bannedAtMs: number;
  readonly untilMs: number;
  /** Automatic bans of this IP remembered where it was decided (this one included); 0 for a manual ban. */
  readonly offences: number;
  readonly manual: boolean;
  readonly reason: string;
}

/** One ban as the operator sees it. */
export interface BanEntry extends Ban {
  readonly remainingSeconds: number;
}

/** What changed in a process's view of the bans (see BanRegistry.onChange). */
export type BanChange =
  | { readonly kind: 'banned'; readonly entry: BanEntry }
  /** `ip` is the key the ban was held under; sent even when no ban was in force. */
  | { readonly kind: 'unbanned'; readonly ip: string };

/**
 * The pool's bans, one list for every process of every host: the ban policy's decisions and the
 * operator's bans and unbans go in, every stratum process refuses what is in it. Each process
 * holds a view of the list (what `isBanned` answers, kept current from the shared list), so a
 * connection, login or submit never waits for it.
 */
export interface BanRegistry {
  /** The bans in force, longest remaining first. */
  list(): Promise<BanEntry[]>;
  /**
   * Bans `ban.ip` (an address stands for its key, see peerKey), replacing any ban of it. The ban
   * is in force in this process when ban() returns (listeners told, before the promise settles);
   * it resolves once it is shared with the other processes, and rejects if it could not be (it
   * still holds here).
   */
  ban(ban: Ban): Promise<BanEntry>;
  /** Lifts the ban of `ip` (an address or key), here at once and then everywhere; whether one was in force. */
  unban(ip: string): Promise<boolean>;
  /** Whether a ban of `peerKey` (as peerKey makes it) is in force in this process's view. */
  isBanned(peerKey: string): boolean;
  /**
   * Calls `listener` with a `banned` change for each ban in force now, then with every change of
   * this process's view, whoever made it. Returns the unsubscribe.
   */
  onChange(listener: (change: BanChange) => void): () => void;
}

/** An operator's ban of `ip` for `seconds` from `now`. */
export function manualBan(ip: string, seconds: number, reason: string, now: number): Ban {
  return {
    ip,
    bannedAtMs: now,
    untilMs: now + Math.max(0, seconds) * 1000,
    offences: 0,
    manual: true,
    reason,
  };
}

/** `ban` as the operator sees it at `now`. */
export function banEntry(ban: Ban, now: number): BanEntry {
  return {
    ip: ban.ip,
    bannedAtMs: ban.bannedAtMs,
    untilMs: ban.untilMs,
    remainingSeconds: Math.max(0, Math.ceil((ban.untilMs - now) / 1000)),
    offences: ban.offences,
    manual: ban.manual,
    reason: ban.reason,
  };
}
