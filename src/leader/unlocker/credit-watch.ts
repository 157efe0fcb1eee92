import type { Logger } from '../../log/logger.js';
import type { CreditedBlock, ReorphanedOutcome, UnlockLedger } from '../../model/blocks/unlock-ledger.js';
import type { PaymentSchemeName } from '../../pool/schemes/payment-scheme-name.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { walkMainChain } from './main-chain-walk.js';
import { OrphanWatch } from './orphan-watch.js';
import type { CandidateDecision } from './unlock-decision.js';
import type { UnlockRunListener } from './unlock-run-listener.js';

/** Confirmed blocks one pass looks at, at most (the newest first). */
const WATCHED_PER_PASS = 1_000;
/** Block-list calls one pass makes, at most: fuegod lists about 30 heights per call. */
const LIST_CALLS_PER_PASS = 100;
/** Credited blocks the audit reads from the ledger at a time (highest first). */
const AUDIT_PAGE = 1_000;
/**
 * Block-list calls one audit makes, at most: enough for every height of the longest audit the
 * config allows (50,000 heights / 30 per call), plus one more call per page.
 */
const LIST_CALLS_PER_AUDIT = 1_800;

export interface CreditWatchOptions {
  readonly confirmDepth: number;
  /** Blocks past confirmDepth a credited block is still checked: while its depth <= the sum. */
  readonly reorgWatchBlocks: number;
  /** Heights below the watch window the periodic audit checks (payments.reorgAuditBlocks); 0: no audit. */
  readonly reorgAuditBlocks: number;
  /** Time between two audits, at least (payments.reorgAuditIntervalSec). */
  readonly reorgAuditIntervalMs: number;
  /** The payment scheme: with PPLNS an orphaned pool block put back is credited by its window. */
  readonly scheme: PaymentSchemeName;
}

/** The chain as the watch reads it: its height, and the main chain's hashes by height, a range per call. */
export type CreditWatchChain = Pick<
  DaemonClient,
  'getBlockCount' | 'getBlocksList' | 'getBlockHeaderByHeight'
>;

export interface CreditWatchModules {
  readonly ledger: Pick<
    UnlockLedger,
    | 'listCreditedFrom'
    | 'listCreditedBetween'
    | 'flagOrphanedAfterCredit'
    | 'noteRestoredBlock'
    | 'noteReorphanedBlock'
    | 'claimReorgAudit'
    | 'listOrphanedBetween'
    | 'reinstateOrphanedBlock'
  >;
  readonly daemon: CreditWatchChain;
  readonly logger: Logger;
  /** When the audit is due; Date.now without it. */
  readonly clock?: () => number;
}

/** A credited block the watch found replaced at its height (and flagged, this pass). */
interface OrphanedAfterCredit extends CreditedBlock {
  /** The main chain's block at its height now. */
  readonly observedHash: string;
}

/**
 * After crediting, a block is still checked each unlock run until it is confirmDepth +
 * reorgWatchBlocks deep: a reorg deeper than confirmDepth takes a block whose reward is already in
 * the miners' balances (and maybe paid out). Such a block is flagged on its record once, and
 * reported; nothing is debited, since taking credits back (some of them already paid) is the
 * operator's decision (`fuego-pool block settle`). A flagged block whose own hash a later reorg
 * puts back at its height while it is still watched is unflagged when not settled yet (warn), or
 * noted once when settled (a clawed-back one at error: its miners are owed the clawback again, which
 * the operator credits back; nothing is re-credited here). A settled block noted restored is still
 * watched: replaced again, its restore is undone (its settlement stands again; no credit back is
 * owed any more: told to the listener, so the operator told of the restore hears of it too), or,
 * credited back since, it is flagged again for the operator like a first time (its miners hold its
 * credits again). The chain is read in ranges (f_blocks_list_json: one call per ~30 heights
 * holding watched blocks, highest first), not a header per block.
 *
 * Below the watch window, a periodic audit (at most once per reorgAuditIntervalMs: when the last
 * began is kept in Redis by a fenced script, so the interval holds across a restart or a failover
 * to another leader, and a stale leader does not audit) checks the credited blocks of the
 * reorgAuditBlocks heights under it through the same path, whatever their state: a replaced one is
 * flagged, a flagged or settled one back at its height is noted restored, a restored settled one
 * replaced again is followed (same records, log lines, decisions and listener calls, so the same
 * notifications, report and metrics).
 * Partial results stand: the blocks flagged before a failure are returned with the run.
 */
export class CreditWatch {
  readonly #opts: CreditWatchOptions;
  readonly #modules: CreditWatchModules;
  readonly #clock: () => number;
  readonly #orphans: OrphanWatch;

  constructor(opts: CreditWatchOptions, modules: CreditWatchModules) {
    if (!Number.isSafeInteger(opts.reorgWatchBlocks) || opts.reorgWatchBlocks < 1) {
      throw new RangeError('reorgWatchBlocks must be an integer >= 1');
    }
    if (!Number.isSafeInteger(opts.reorgAuditBlocks) || opts.reorgAuditBlocks < 0) {
      throw new RangeError('reorgAuditBlocks must be an integer >= 0');
    }
    if (!Number.isFinite(opts.reorgAuditIntervalMs) || opts.reorgAuditIntervalMs < 0) {
      throw new RangeError('reorgAuditIntervalMs must be a number >= 0');
    }
    this.#opts = opts;
    this.#modules = modules;
    this.#clock = modules.clock ?? Date.now;
    const { confirmDepth, reorgWatchBlocks, scheme } = opts;
    this.#orphans = new OrphanWatch(
      { confirmDepth, reorgWatchBlocks, poolBlocksByWindow: scheme === 'pplns' },
      modules,
    );
  }

  /**
   * One pass, and the audit when due: a decision per credited block found replaced and flagged now
   * (flagged before: not again), each restore noted told to `listener.onRestored`, each restore
   * undone to `listener.onReorphaned`, each orphaned block back on chain and not credited to
   * `listener.onBackUncredited` (orphan-watch.ts). A failure is logged and the pass tried again next run (the
   * audit when it is next due); a fencing refusal is thrown.
   */
  async runOnce(fencingToken: string, listener: UnlockRunListener = {}): Promise<CandidateDecision[]> {
    const flagged: OrphanedAfterCredit[] = [];
    let top: number | null = null;
    try {
      top = (await this.#modules.daemon.getBlockCount()) - 1;
      await this.#pass(top, fencingToken, flagged, listener);
    } catch (error) {
      this.#failed(error, 'reorg watch of credited blocks failed');
    }
    if (top !== null) {
      try {
        await this.#orphans.runOnce(top, fencingToken, listener);
      } catch (error) {
        this.#failed(error, 'reorg watch of orphaned blocks failed');
      }
    }
    if (top !== null && this.#opts.reorgAuditBlocks > 0) {
      try {
        if (await this.#auditDue(fencingToken)) await this.#audit(top, fencingToken, flagged, listener);
      } catch (error) {
        this.#failed(error, 'reorg audit of credited blocks below the watch window failed');
      }
    }
    return flagged.map(({ hash, height, rewardAtomic, observedHash }) => ({
      hash,
      height,
      outcome: 'orphaned-after-credit',
      detail: `main chain has ${observedHash}; credits stand`,
      rewardAtomic,
    }));
  }

  #failed(error: unknown, message: string): void {
    if ((error as { code?: string }).code === 'FENCED') throw error;
    this.#modules.logger.error({ err: error }, message);
  }

  /** Whether the audit is due, claimed (its start kept, fenced) when it is: at most one per interval. */
  #auditDue(fencingToken: string): Promise<boolean> {
    const { reorgAuditIntervalMs: intervalMs } = this.#opts;
    return this.#modules.ledger.claimReorgAudit({ nowMs: this.#clock(), intervalMs, fencingToken });
  }

  async #pass(
    top: number,
    fencingToken: string,
    flagged: OrphanedAfterCredit[],
    listener: UnlockRunListener,
  ): Promise<void> {
    const fromHeight = top - this.#opts.confirmDepth - this.#opts.reorgWatchBlocks;
    // Above the tip (the chain is shorter for now) nothing holds the height: next pass.
    const watched = (await this.#modules.ledger.listCreditedFrom(fromHeight, WATCHED_PER_PASS)).filter(
      (block) => block.height <= top,
    );
    await this.#check(watched, top, fencingToken, flagged, LIST_CALLS_PER_PASS, listener);
  }

  /**
   * The credited blocks of the reorgAuditBlocks heights under the watch window (those deeper than
   * confirmDepth + reorgWatchBlocks), a page at a time, each checked as the watch checks its own.
   */
  async #audit(
    top: number,
    fencingToken: string,
    flagged: OrphanedAfterCredit[],
    listener: UnlockRunListener,
  ): Promise<void> {
    const toHeight = top - this.#opts.confirmDepth - this.#opts.reorgWatchBlocks - 1;
    const fromHeight = Math.max(0, toHeight - this.#opts.reorgAuditBlocks + 1);
    const before = flagged.length;
    let checked = 0;
    let calls = 0;
    for (let offset = 0; toHeight >= 0 && calls < LIST_CALLS_PER_AUDIT; offset += AUDIT_PAGE) {
      const page = await this.#modules.ledger.listCreditedBetween(fromHeight, toHeight, {
        offset,
        limit: AUDIT_PAGE,
      });
      calls += await this.#check(page, top, fencingToken, flagged, LIST_CALLS_PER_AUDIT - calls, listener);
      checked += page.length;
      if (page.length < AUDIT_PAGE) break;
    }
    // Orphaned blocks a deeper reorg put back while no unlock run saw them in the watch window.
    if (toHeight >= 0) await this.#orphans.checkRange(fromHeight, toHeight, top, fencingToken, listener);
    this.#modules.logger.info(
      { fromHeight, toHeight, checked, listCalls: calls, flagged: flagged.length - before },
      'reorg audit of credited blocks below the watch window done',
    );
  }

  /**
   * `blocks` (highest first) against the main chain, a block-list call per range, at most
   * `maxCalls`: a credited one replaced is flagged (and added to `flagged`), a flagged or settled
   * one back at its height noted. Returns the calls made.
   */
  async #check(
    blocks: readonly CreditedBlock[],
    top: number,
    fencingToken: string,
    flagged: OrphanedAfterCredit[],
    maxCalls: number,
    listener: UnlockRunListener,
  ): Promise<number> {
    return walkMainChain(blocks, this.#modules.daemon, maxCalls, async (block, observedHash) => {
      if (observedHash === block.hash) {
        if (block.state === 'flagged' || block.state === 'settled') {
          await this.#noteRestored(block, top, fencingToken, listener);
        }
      } else if (block.state === 'credited') {
        if (await this.#flag(block, observedHash, top, fencingToken))
          flagged.push({ ...block, observedHash });
      } else if (block.state === 'settled-restored') {
        const outcome = await this.#noteReorphaned(block, observedHash, top, fencingToken, listener);
        if (outcome === 'reflagged') flagged.push({ ...block, observedHash });
      }
    });
  }

  async #flag(
    block: CreditedBlock,
    observedHash: string,
    top: number,
    fencingToken: string,
  ): Promise<boolean> {
    const { hash, height, rewardAtomic } = block;
    const depth = top - height;
    const { applied } = await this.#modules.ledger.flagOrphanedAfterCredit({
      hash,
      height,
      observedHash,
      reason: `another block at height ${height}, ${depth} deep, after this one was credited`,
      fencingToken,
    });
    if (applied) {
      this.#modules.logger.error(
        { hash, height, depth, mainChainHash: observedHash, reward: rewardAtomic.toString() },
        'credited block orphaned by a reorg deeper than confirmDepth: its credits stand, see fuego-pool report',
      );
    }
    return applied;
  }

  async #noteRestored(
    block: CreditedBlock,
    top: number,
    fencingToken: string,
    listener: UnlockRunListener,
  ): Promise<void> {
    const { hash, height, rewardAtomic } = block;
    const outcome = await this.#modules.ledger.noteRestoredBlock({ hash, height, fencingToken });
    if (outcome !== 'none') listener.onRestored?.({ hash, height, rewardAtomic, outcome });
    const data = { hash, height, depth: top - height, reward: rewardAtomic.toString() };
    const { logger } = this.#modules;
    if (outcome === 'unflagged') {
      logger.warn(data, 'block orphaned after credit is back on the main chain (a later reorg): unflagged');
    } else if (outcome === 'absorbed') {
      logger.warn(
        data,
        'block orphaned after credit and absorbed is back on the main chain: the loss did not happen',
      );
    } else if (outcome === 'clawed-back') {
      logger.error(
        data,
        'block orphaned after credit and clawed back is back on the main chain: its miners are owed the clawback again, see fuego-pool report (fuego-pool block settle HASH --credit-back)',
      );
    }
  }

  /** A settled block noted restored is replaced again: its restore undone (told), or flagged again. */
  async #noteReorphaned(
    block: CreditedBlock,
    observedHash: string,
    top: number,
    fencingToken: string,
    listener: UnlockRunListener,
  ): Promise<ReorphanedOutcome> {
    const { hash, height, rewardAtomic } = block;
    const depth = top - height;
    const outcome = await this.#modules.ledger.noteReorphanedBlock({
      hash,
      height,
      observedHash,
      reason: `another block at height ${height}, ${depth} deep, after a reorg had restored this settled one`,
      fencingToken,
    });
    if (outcome === 'absorbed' || outcome === 'clawed-back') {
      listener.onReorphaned?.({ hash, height, rewardAtomic, outcome });
    }
    const data = { hash, height, depth, mainChainHash: observedHash, reward: rewardAtomic.toString() };
    const { logger } = this.#modules;
    if (outcome === 'absorbed') {
      logger.warn(data, 'absorbed block restored by a reorg is replaced again: the loss stands again');
    } else if (outcome === 'clawed-back') {
      logger.warn(
        data,
        'clawed-back block restored by a reorg is replaced again: no credit back is owed any more',
      );
    } else if (outcome === 'reflagged') {
      logger.error(
        data,
        'credited-back block replaced again by a reorg: its credits stand, flagged again for the operator, see fuego-pool report',
      );
    }
    return outcome;
  }
}
