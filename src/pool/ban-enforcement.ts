import type { Logger } from '../log/logger.js';
import { type AggregateBanOptions, AggregateBanWatch, banAggregateIfDue } from './aggregate-bans.js';
import { BanPolicy, type BanPolicyOptions } from './ban-policy.js';
import type { Ban, BanChange, BanRegistry } from './ban-registry.js';
import type { MinerSession } from './miner-session.js';
import type { ShareVerifier } from './share-verifier.js';
import type { StratumErrorCode } from './stratum-errors.js';

export interface BanEnforcementModules {
  readonly bans: BanRegistry;
  /** The sessions to close when their peer is banned (the pool core's live map). */
  readonly sessions: Map<string, MinerSession>;
  readonly verifier: Pick<ShareVerifier, 'cancel'>;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly onBanIssued: () => void;
}

/**
 * Bans as the pool core applies them: the ban policy scores each submit outcome, its decisions go
 * to the ban registry, and whoever decided a ban (this policy, the operator, another process), the
 * banned peer's sessions close and its submits not yet hashed are dropped, so a burst of bogus
 * shares is not hashed to the end once it earned a ban. Several banned IPv6 /64s of one aggregate
 * network ban the aggregate.
 */
export class BanEnforcement {
  readonly #modules: BanEnforcementModules;
  readonly #policy: BanPolicy;
  readonly #aggregates: AggregateBanWatch;
  /** Sessions a ban is answered to in their own reply, which closes them: not closed again. */
  readonly #closedByReply = new Set<string>();
  readonly #unsubscribe: () => void;

  constructor(
    options: { readonly ban: BanPolicyOptions; readonly ipv6AggregateBans: AggregateBanOptions },
    modules: BanEnforcementModules,
  ) {
    this.#modules = modules;
    this.#policy = new BanPolicy(options.ban, modules.clock);
    this.#aggregates = new AggregateBanWatch(options.ipv6AggregateBans, modules.clock);
    this.#unsubscribe = modules.bans.onChange((change) => this.#onChange(change));
  }

  /** The key `ip` is judged by: the address, or for IPv6 its network (see peerKey). */
  keyOf(ip: string): string {
    return this.#policy.keyOf(ip);
  }

  /** Banned by its own key (an IPv4 address, an IPv6 /64), or by its IPv6 aggregate network. */
  isBanned(ip: string): boolean {
    const { bans } = this.#modules;
    if (bans.isBanned(this.#policy.keyOf(ip))) return true;
    const aggregate = this.#aggregates.aggregateOf(ip);
    return aggregate !== undefined && bans.isBanned(aggregate);
  }

  /**
   * Scores one submit outcome of `session`. True when it earned its peer a ban: the ban is issued
   * and the session is closed by its error reply.
   */
  record(session: MinerSession, outcome: 'OK' | StratumErrorCode): boolean {
    const ban = this.#policy.record(session.ip, outcome);
    if (ban === undefined) return false;
    this.#issue(ban, session.id);
    return true;
  }

  /** The session is gone. */
  forgetSession(sessionId: string): void {
    this.#closedByReply.delete(sessionId);
  }

  /** Forgets peers with nothing left to remember (housekeeping). */
  prune(): void {
    this.#policy.prune();
    this.#aggregates.prune();
  }

  close(): void {
    this.#unsubscribe();
  }

  /**
   * The ban policy's decision, handed to the registry (which puts it in force here at once: its
   * change closes the IP's other sessions; this one is closed by its error reply).
   */
  #issue(ban: Ban, sessionId: string): void {
    const { logger, bans } = this.#modules;
    this.#modules.onBanIssued();
    logger.warn(
      {
        ip: ban.ip,
        seconds: (ban.untilMs - ban.bannedAtMs) / 1000,
        offences: ban.offences,
        reason: ban.reason,
      },
      'IP banned',
    );
    this.#closedByReply.add(sessionId);
    bans
      .ban(ban)
      .catch((error: unknown) =>
        logger.warn({ err: error, ip: ban.ip }, 'ban not shared with the other stratum processes'),
      );
  }

  /** Whoever decided a ban, the IP's sessions close; the policy learns of it and of unbans. */
  #onChange(change: BanChange): void {
    if (change.kind === 'unbanned') {
      this.#policy.forget(change.ip);
      return;
    }
    const { entry } = change;
    if (this.#aggregates.isAggregate(entry.ip)) {
      this.#closeSessionsOf(entry.ip);
      return;
    }
    this.#policy.noteBan(entry);
    this.#closeSessionsOf(entry.ip);
    banAggregateIfDue(this.#aggregates, entry, this.#modules.bans, this.#modules.logger);
  }

  /** Closes the sessions a ban of `key` covers and drops their peers' submits not yet hashed. */
  #closeSessionsOf(key: string): void {
    const { sessions, logger, verifier } = this.#modules;
    const peers = new Set<string>([key]);
    for (const session of [...sessions.values()]) {
      if (!this.#covers(key, session.ip)) continue;
      peers.add(session.peer);
      if (this.#closedByReply.has(session.id)) continue;
      sessions.delete(session.id);
      try {
        session.sink.close('banned');
      } catch (error) {
        logger.debug({ err: error, session: session.id }, 'closing a banned session failed');
      }
    }
    for (const peer of peers) verifier.cancel(peer);
  }

  /** Whether a ban of `key` covers `ip`: its own key, or its IPv6 aggregate network. */
  #covers(key: string, ip: string): boolean {
    return this.#policy.keyOf(ip) === key || this.#aggregates.aggregateOf(ip) === key;
  }
}
