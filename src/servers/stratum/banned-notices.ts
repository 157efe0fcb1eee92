/** Peers remembered; past it the memory is emptied (a peer then hears once more why). */
const MAX_PEERS = 10_000;

/**
 * When a banned peer is told why. Its first connection in each interval is let in to be answered
 * "Your IP is banned" (a miner's operator sees why); the others are closed at accept, unread,
 * because a peer reconnecting at full speed would otherwise cost a session, a parse and a reply
 * each time.
 */
export class BannedPeerNotices {
  readonly #intervalMs: number;
  readonly #toldAtMs = new Map<string, number>();

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  /** True (and remembered) when `peer` was not told within the interval. */
  shouldTell(peer: string, nowMs: number): boolean {
    const told = this.#toldAtMs.get(peer);
    if (told !== undefined && nowMs - told < this.#intervalMs) return false;
    if (this.#toldAtMs.size >= MAX_PEERS) this.#toldAtMs.clear();
    this.#toldAtMs.set(peer, nowMs);
    return true;
  }
}
