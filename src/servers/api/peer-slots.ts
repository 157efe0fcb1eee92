/**
 * Slots held per peer key, at most `limit` each (feed connections, long-poll waiters): one
 * client cannot take every slot of a shared pool while other peers are still served.
 */
export class PeerSlots {
  readonly #limit: number;
  readonly #held = new Map<string, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Takes a slot for `peer`; false (nothing taken) when it holds `limit` already. */
  take(peer: string): boolean {
    const held = this.#held.get(peer) ?? 0;
    if (held >= this.#limit) return false;
    this.#held.set(peer, held + 1);
    return true;
  }

  release(peer: string): void {
    const held = (this.#held.get(peer) ?? 1) - 1;
    if (held <= 0) this.#held.delete(peer);
    else this.#held.set(peer, held);
  }
}
