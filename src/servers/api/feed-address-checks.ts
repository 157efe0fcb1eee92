import { decodeAddress } from '../../fuego/address.js';
import { CheckTurns } from '../../pool/check-turns.js';
import { PeerBudget } from '../../pool/peer-budget.js';

/** Peers whose new-address budget is remembered (least recently seen forgotten first). */
const NEW_ADDRESS_BUDGET_PEERS = 100_000;
/** Distinct valid addresses remembered so a repeated subscribe is not decoded again. */
const VALID_ADDRESS_CACHE = 10_000;

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
 * turn (CheckTurns); valid addresses are remembered and cost nothing again.
 */
export class FeedAddressChecks {
  readonly #limits: FeedAddressCheckLimits;
  readonly #clock: () => number;
  readonly #perPeer: PeerBudget;
  readonly #turns = new CheckTurns();
  readonly #valid = new Set<string>();

  constructor(limits: FeedAddressCheckLimits, clock: () => number) {
    this.#limits = limits;
    this.#clock = clock;
    this.#perPeer = new PeerBudget({
      burst: limits.newAddressBurstPerPeer,
      perMinute: limits.newAddressesPerPeerPerMinute,
      maxPeers: NEW_ADDRESS_BUDGET_PEERS,
    });
  }

  /** Decoded before and valid: subscribing to it costs no check. */
  isKnown(address: string): boolean {
    return this.#valid.has(address);
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

  /** Decodes `address` (call it in its turn); a valid one is remembered. */
  isValid(address: string): boolean {
    if (this.#valid.has(address)) return true;
    try {
      decodeAddress(address);
    } catch {
      return false;
    }
    if (this.#valid.size >= VALID_ADDRESS_CACHE) this.#valid.clear();
    this.#valid.add(address);
    return true;
  }
}
