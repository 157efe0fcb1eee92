import type { AddressCache } from './address-cache.js';
import { CheckTurns } from './check-turns.js';
import { PeerBudget, type PeerBudgetOptions } from './peer-budget.js';
import { StratumError } from './stratum-errors.js';

export interface NewAddressChecksModules {
  /** Addresses checked already (a key check costs ~1.4 ms of event loop); a check's result goes here. */
  readonly addresses: AddressCache;
  /** The key a peer is judged by (its IP; for IPv6, its network). */
  readonly peerKey: (ip: string) => string;
  readonly elapsedClock: () => number;
}

/**
 * The login addresses the pool has not checked yet. A new address is charged to its peer's budget
 * (a host cannot make every login a new key check) and checked in its peer's turn (CheckTurns),
 * once: the logins of a farm reconnecting with one address at once wait for the same check.
 */
export class NewAddressChecks {
  readonly #modules: NewAddressChecksModules;
  readonly #budget: PeerBudget;
  readonly #turns = new CheckTurns();
  /** New addresses waiting for their check, by text. */
  readonly #pending = new Map<string, Promise<void>>();

  constructor(budget: PeerBudgetOptions, modules: NewAddressChecksModules) {
    this.#budget = new PeerBudget(budget);
    this.#modules = modules;
  }

  /**
   * Resolves once `text` is checked (known or refused: the login's own decode throws a refusal);
   * throws LOGIN_RATE_LIMITED when the peer at `ip` has no budget left for a new address.
   */
  check(text: string, ip: string): Promise<void> {
    const { addresses, peerKey, elapsedClock } = this.#modules;
    if (addresses.knows(text)) return Promise.resolve();
    const pending = this.#pending.get(text);
    if (pending !== undefined) return pending;
    if (!this.#budget.take(peerKey(ip), elapsedClock())) throw new StratumError('LOGIN_RATE_LIMITED');
    const check = this.#turns
      .turn(peerKey(ip))
      .then(() => {
        try {
          addresses.decode(text);
        } catch {
          // Remembered as refused: the login's own decode throws it.
        }
      })
      .finally(() => this.#pending.delete(text));
    this.#pending.set(text, check);
    return check;
  }
}
