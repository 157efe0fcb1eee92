/**
 * What the simulated fuegod says about its peer-to-peer network, which it does not have: by
 * default none (an isolated fuegod: no connections, nothing known beyond its own tip). Tests set
 * a peer count or a longer chain known from the peers (a syncing daemon); nothing is connected,
 * only getinfo changes, with the real daemon's field meanings.
 */
export class DaemonPeers {
  #outgoing = 0;
  #incoming = 0;
  #knownBlocksAhead = 0;

  /** Outgoing and incoming connections; 0 and 0 is an isolated fuegod. */
  set(outgoing: number, incoming = 0): void {
    for (const count of [outgoing, incoming]) {
      if (!Number.isSafeInteger(count) || count < 0) {
        throw new RangeError('peer counts must be whole numbers >= 0');
      }
    }
    this.#outgoing = outgoing;
    this.#incoming = incoming;
  }

  /** Blocks the peers know beyond the daemon's chain (0: synced). */
  get knownBlocksAhead(): number {
    return this.#knownBlocksAhead;
  }

  /** The peers know `blocks` more than the daemon's chain has (0: synced). The chain does not change. */
  setKnownBlocksAhead(blocks: number): void {
    if (!Number.isSafeInteger(blocks) || blocks < 0) {
      throw new RangeError('blocks must be a whole number >= 0');
    }
    this.#knownBlocksAhead = blocks;
  }

  /**
   * getinfo's peer fields at a chain of `height` blocks: the counts, one `connections` entry
   * (ip:port) per connection from TEST-NET-1 (RFC 5737, never a real peer), and
   * `last_known_block_index`, the highest index known from the peers (the tip's when synced).
   */
  infoFields(height: number): {
    connections: string[];
    incoming_connections_count: number;
    last_known_block_index: number;
    outgoing_connections_count: number;
  } {
    const count = this.#outgoing + this.#incoming;
    return {
      connections: Array.from({ length: count }, (_, i) => `192.0.2.${(i % 254) + 1}:10808`),
      incoming_connections_count: this.#incoming,
      last_known_block_index: height - 1 + this.#knownBlocksAhead,
      outgoing_connections_count: this.#outgoing,
    };
  }
}
