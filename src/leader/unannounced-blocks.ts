import type { Logger } from '../log/logger.js';
import type { BlockAnnouncementLedger, UnannouncedBlock } from '../model/blocks/block-announcements.js';
import type { PoolEventBus, PoolEventMap } from '../pool/events.js';

/**
 * How long after its mark a block may still wait for its finder's `block-found`: the stratum side
 * publishes right after its write returns, and retries that write for up to 30 s while Redis is
 * unavailable (store.candidateRetryMs' default), so a mark older than this was left by a process
 * that died or lost Redis in between. Marks are written and aged by Redis's clock.
 */
export const UNANNOUNCED_AFTER_MS = 45_000;
/** How often the leader looks for them (at most; a shorter unlock interval is used instead). */
export const UNANNOUNCED_WATCH_INTERVAL_MS = 15_000;
/** Blocks told per run at most; the rest wait for the next run. */
export const MAX_UNANNOUNCED_PER_RUN = 100;

export interface UnannouncedBlocksWatchModules {
  readonly ledger: BlockAnnouncementLedger;
  readonly events: Pick<PoolEventBus, 'publish'>;
  readonly logger: Logger;
  /** The leader's fencing token; null: not leading (nothing is told); "" or absent: no election. */
  readonly fencingToken?: () => string | null;
  /** UNANNOUNCED_AFTER_MS unless given (tests wait less). */
  readonly afterMs?: number;
}

/** The payload of a block's `block-found`, as its finder tells it (the find's facts, never the retell's). */
export function blockFoundOf(block: UnannouncedBlock): PoolEventMap['block-found'] {
  const { height, hash, finderAddress, solo, timestampMs } = block;
  const facts = { height, hash, finderAddress, solo, timestampMs };
  return block.foundAfterRefusal ? { ...facts, foundAfterRefusal: true } : facts;
}

/**
 * The leader's half of `block-found`'s at-least-once delivery (model/blocks/block-announcements.ts):
 * each run publishes `block-found` for every block still marked unannounced UNANNOUNCED_AFTER_MS
 * after its mark, with the payload its finder would have sent, then clears the mark, fenced by the
 * lease: a leader that lost it clears nothing (the next leader tells the block again). A block
 * told and not cleared (this process died in between, or Redis failed the clear) is told again by
 * a later run: receivers deduplicate by the block hash.
 *
 * The mark's age is Redis's to tell (it scored the mark by its own clock): the finder is on
 * another host, and ages from its clock would have every block of a host 10 minutes behind told
 * twice (and of one ahead, told late).
 */
export class UnannouncedBlocksWatch {
  readonly #modules: UnannouncedBlocksWatchModules;

  constructor(modules: UnannouncedBlocksWatchModules) {
    this.#modules = modules;
  }

  /** One run; returns the blocks it told. */
  async runOnce(): Promise<readonly UnannouncedBlock[]> {
    const { ledger, logger } = this.#modules;
    if (this.#token() === null) return [];
    const afterMs = this.#modules.afterMs ?? UNANNOUNCED_AFTER_MS;
    const blocks = await ledger.listUnannounced(afterMs, MAX_UNANNOUNCED_PER_RUN);
    const told: UnannouncedBlock[] = [];
    for (const block of blocks) {
      logger.warn(
        { height: block.height, hash: block.hash, markedAtMs: block.markedAtMs },
        'block-found told by the leader: the process that recorded the block did not publish it (it stopped or lost Redis)',
      );
      if (!(await this.announce(block))) break;
      told.push(block);
    }
    return told;
  }

  /**
   * Publishes the block's `block-found` and clears its mark (fenced); false when this process no
   * longer leads (published maybe, not cleared: the next leader tells it again). Also for a refused
   * block the leader's unlocker promoted (its promotion marked it like the stratum side's).
   */
  async announce(block: UnannouncedBlock): Promise<boolean> {
    const token = this.#token();
    if (token === null) return false;
    this.#modules.events.publish('block-found', blockFoundOf(block));
    const cleared = await this.#modules.ledger.markAnnounced(block.hash, token);
    if (!cleared) {
      this.#modules.logger.warn(
        { hash: block.hash },
        'block-found told, but the lease was lost before its mark was cleared',
      );
    }
    return cleared;
  }

  #token(): string | null {
    return this.#modules.fencingToken ? this.#modules.fencingToken() : '';
  }
}
