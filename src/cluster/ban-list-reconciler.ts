import type { Ban, BanEntry } from '../pool/ban-registry.js';
import type { LocalBans } from '../pool/local-bans.js';

/** A ban held here that the Redis ban list held too, as of event `at`, ending at `untilMs` there. */
interface Listed {
  readonly at: number;
  readonly untilMs: number;
}

/**
 * Keeps one process's view of the bans (LocalBans) in step with the Redis ban list when the ban
 * channel missed something: pub/sub drops what is announced while a subscription is down, so the
 * list is read again (after a reconnect, at each prune) and the view reconciled with it. A read
 * adds the bans it holds, and lifts those the view took from the list that the list no longer
 * holds (an unban this process did not hear).
 *
 * It lifts only what it knows was in the list before the read began: not a ban made here and not
 * stored (in flight, or refused while Redis was away), nor one stored or heard while the read was
 * under way (the read may have come first). A ban the read holds is not taken again if an unban of
 * it was heard after the read began. A ban whose listed end has passed has run out, not been
 * lifted: the ban held here ends by its own end, as before.
 */
export class BanListReconciler {
  readonly #local: LocalBans;
  readonly #clock: () => number;
  /** Numbers every change below; a read compares with the number at its start. */
  #event = 0;
  readonly #listed = new Map<string, Listed>();
  /** Bans made here being stored, by key: the event of the latest (an earlier one settles nothing). */
  readonly #storing = new Map<string, number>();
  /** Unbans heard or made while reads are under way: key -> event. */
  readonly #lifted = new Map<string, number>();
  #readsUnderWay = 0;

  constructor(local: LocalBans, clock: () => number = Date.now) {
    this.#local = local;
    this.#clock = clock;
  }

  /**
   * A ban made here: in force at once (see LocalBans.put). Call `stored` once the list holds it;
   * until then it is not the list's to lift.
   */
  put(ban: Ban): { readonly entry: BanEntry; readonly stored: () => void } {
    const entry = this.#local.put(ban);
    const key = entry.ip;
    const event = this.#next();
    this.#listed.delete(key);
    this.#storing.set(key, event);
    const stored = () => {
      if (this.#storing.get(key) !== event) return; // a later ban or unban of the key decides
      this.#storing.delete(key);
      this.#listed.set(key, { at: this.#next(), untilMs: entry.untilMs });
    };
    return { entry, stored };
  }

  /** A ban the list holds (heard on the channel, or read): see LocalBans.adopt. */
  adopt(ban: Ban): boolean {
    const key = this.#local.keyOf(ban.ip);
    if (this.#local.adopt(ban)) {
      this.#storing.delete(key);
      this.#listed.set(key, { at: this.#next(), untilMs: ban.untilMs });
      return true;
    }
    // The list holds this one now; a longer ban held from it stays (heard bans only extend), and
    // its absence from a read after this one's end means it ran out there, not that it was lifted.
    if (this.#listed.has(key)) this.#listed.set(key, { at: this.#next(), untilMs: ban.untilMs });
    return false;
  }

  /** An unban, made here or heard: see LocalBans.remove. */
  lift(ip: string): boolean {
    const key = this.#local.keyOf(ip);
    this.#listed.delete(key);
    this.#storing.delete(key);
    const event = this.#next();
    if (this.#readsUnderWay > 0) this.#lifted.set(key, event);
    return this.#local.remove(key);
  }

  /**
   * Reconciles the view with the list's running bans as `read` finds them; `read` must send its
   * read when called. Resolves with them, or rejects as `read` does (nothing changed).
   */
  async catchUp(read: () => Promise<readonly Ban[]>): Promise<readonly Ban[]> {
    const startedAt = this.#event;
    this.#readsUnderWay += 1;
    try {
      const running = await read();
      this.#reconcile(running, startedAt);
      return running;
    } finally {
      this.#readsUnderWay -= 1;
      if (this.#readsUnderWay === 0) this.#lifted.clear();
    }
  }

  #reconcile(running: readonly Ban[], startedAt: number): void {
    const inList = new Set<string>();
    for (const ban of running) {
      const key = this.#local.keyOf(ban.ip);
      inList.add(key);
      if ((this.#lifted.get(key) ?? 0) <= startedAt) this.adopt(ban);
    }
    const now = this.#clock();
    for (const [key, listed] of [...this.#listed]) {
      if (!this.#local.isBanned(key) || listed.untilMs <= now) this.#listed.delete(key);
      else if (listed.at <= startedAt && !inList.has(key)) this.lift(key);
    }
    // Stores that failed leave their key here; forget those no longer held (ended or lifted).
    for (const key of [...this.#storing.keys()]) if (!this.#local.isBanned(key)) this.#storing.delete(key);
  }

  #next(): number {
    this.#event += 1;
    return this.#event;
  }
}
