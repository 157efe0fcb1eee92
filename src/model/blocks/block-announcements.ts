/**
 * The ports of `block-found`'s at-least-once delivery. A block is recorded marked unannounced in
 * the write that records it (or promotes a refused one); the process that publishes its
 * `block-found` clears the mark after the publish, and the leader publishes the blocks still
 * marked a while after their mark (their finder died or lost Redis in between), then clears them.
 * The mark's time and its age are both read from the store's clock, never a host's.
 * A process that dies after a publish and before its clear makes the block told twice: receivers
 * deduplicate by the block hash.
 */

/** A block marked unannounced, with the facts its `block-found` carries (the find's). */
export interface UnannouncedBlock {
  readonly height: number;
  readonly hash: string;
  readonly finderAddress: string;
  readonly solo: boolean;
  /** When it was found (a promoted refusal: its submit). */
  readonly timestampMs: number;
  /** A block submitblock refused that was found on the chain later and promoted. */
  readonly foundAfterRefusal: boolean;
  /** When it was marked (the find, or a refused block's promotion), by the store's clock. */
  readonly markedAtMs: number;
}

/** The side that published a block's `block-found`: clears its mark (cheap; a failure only repeats it). */
export interface BlockAnnouncementMarks {
  /**
   * Clears the block's mark. `fencingToken`: the leader's ("" = no election); a token that no
   * longer holds the lease clears nothing and returns false.
   */
  markAnnounced(hash: string, fencingToken?: string): Promise<boolean>;
}

/** The leader's view: the blocks still marked, and their clearing (fenced by its lease). */
export interface BlockAnnouncementLedger extends BlockAnnouncementMarks {
  /**
   * The blocks marked at least `minAgeMs` ago by the store's clock (the one the marks were
   * written by), oldest mark first, at most `limit`. A mark whose record is gone is cleared
   * (unfenced: nothing is told for it) and not returned.
   */
  listUnannounced(minAgeMs: number, limit: number): Promise<UnannouncedBlock[]>;
}
