/**
 * How a relay fails: 'refused' is the daemon answering sendrawtransaction with a status other than
 * OK (walletd: 5 "Internal node error"); 'unreachable' is no connection to it (7 "Can't connect to
 * daemon").
 */
export type RelayFailureMode = 'refused' | 'unreachable';

/**
 * Faults a test arms on the devnet wallet's next sends (sendTransaction, and for relays also
 * sendFusionTransaction): each armed fault is used up by the first send that gets that far.
 */
export class SendFaults {
  #refusals = 0;
  #relayFailures = 0;
  #relayMode: RelayFailureMode = 'refused';

  /** The next `count` sends are refused with 6 "MixIn count is too big", as on a young chain. */
  refuseNext(count: number): void {
    this.#refusals = count;
  }

  /** The next `count` sends are built and recorded, then their relay to the daemon fails. */
  failRelayNext(count: number, mode: RelayFailureMode): void {
    this.#relayFailures = count;
    this.#relayMode = mode;
  }

  takeRefusal(): boolean {
    if (this.#refusals === 0) return false;
    this.#refusals -= 1;
    return true;
  }

  takeRelayFailure(): RelayFailureMode | undefined {
    if (this.#relayFailures === 0) return undefined;
    this.#relayFailures -= 1;
    return this.#relayMode;
  }
}
