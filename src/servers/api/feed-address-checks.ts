import { AddressCache } from '../../pool/address-cache.js';
import { CheckTurns } from '../../pool/check-turns.js';
import { PeerBudget } from '../../pool/peer-budget.js';

/** Peers whose new-address budget is remembered (least recently seen forgotten first). */
const NEW_ADDRESS_BUDGET_PEERS = 100_000;
/** Distinct addresses whose check is remembered (valid ones and refused ones, each). */
const ADDRESS_CACHE_ENTRIES = 10_000;

export interface FeedAddressCheckLimits {
  /** New addresses one connection may have decoded. */
  readonly maxAddressChecksPerClient: number;
  readonly newAddressBurstPerPeer: number;
  readonly newAddressesPerPeerPerMinute: number;
}

/** Why a new address is not checked: the connection's or the peer's allowance is spent. */
export type AddressCheckRefusal = 'connection-spent' | 'peer-spent';

/**
 * What a feed subscription to an address not seen before costs, and its bounds. Decoding one is
 * ~1.4 ms of ed25519 checks on the event loop, so each connection and each peer (over all its
 * connections, so reconnecting brings no fresh budget) may have only so many decoded, each in its
 * turn (CheckTurns). Each outcome, valid or refused, is remembered (AddressCache): an address
 * checked once costs nobody a check or a charge again, so clients repeating one invalid address
 * make the feed pay once.
 */
export class FeedAddressChecks {
  readonly #limits: FeedAddressCheckLimits;
  readonly #clock: () => number;
  readonly #perPeer: PeerBudget;
  readonly #turns = new CheckTurns();
  readonly #addresses = new AddressCache(ADDRESS_CACHE_ENTRIES);

  constructor(limits: FeedAddressCheckLimits, clock: () => number) {
    this.#limits = limits;
    this.#clock = clock;
    this.#perPeer = new PeerBudget({
      burst: limits.newAddressBurstPerPeer,
      perMinute: limits.newAddressesPerPeerPerMinute,
      maxPeers: NEW_ADDRESS_BUDGET_PEERS,
    });
  }

  /** Checked before (valid or refused): its outcome costs no check. */
  isKnown(address: string): boolean {
    return this.#addresses.knows(address);
  }

  /**
   * Charges a new address to the connection (its count, `checks`) and to its peer; the refusal
   * when either allowance is spent (then nothing is charged to the connection).
   */
  charge(connection: { addressChecks: number }, peer: string): AddressCheckRefusal | undefined {
    if (connection.addressChecks >= this.#limits.maxAddressChecksPerClient) return 'connection-spent';
    if (!this.#perPeer.take(peer, this.#clock())) return 'peer-spent';
    connection.addressChecks += 1;
    return undefined;
  }

  /** Resolves when `peer` may run its check (one per event-loop turn, peers in turn). */
  turn(peer: string): Promise<void> {
    return this.#turns.turn(peer);
  }

  /** Whether `address` is a Fuego address: decoded in its turn when not known, recalled otherwise. */
  isValid(address: string): boolean {
    try {
      this.#addresses.decode(address);
      return true;
    } catch {
      return false;
    }
  }
}
