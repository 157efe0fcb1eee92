import type { Logger } from '../../log/logger.js';
import type { BlockWindowLedger, ShareWindow } from '../../model/blocks/unlock-ledger.js';
import { pplnsWindowDifficulty } from '../../pool/schemes/pplns-window.js';
import { pplnsWindowWeights } from '../../pool/schemes/pplns-window-weights.js';
import { UnlockError } from './unlock-error.js';

/** Blocks fixed per run; normally 0 or 1 wait (the fixer runs right after each find). */
const MAX_WINDOWS_PER_RUN = 100;

export interface WindowFixerOptions {
  /** N in "last N × network difficulty" (payments.pplnsWindowFactor). */
  readonly pplnsWindowFactor: number;
}

export interface WindowFixerModules {
  readonly ledger: BlockWindowLedger;
  readonly logger: Logger;
  /** Leader fencing as in the unlocker: null means "not the leader", and the run writes nothing. */
  readonly fencingToken?: () => string | null;
}

export interface WindowFix {
  readonly hash: string;
  /** 'already-fixed': another fixer (or an earlier run) came first; nothing was written. */
  readonly outcome: 'fixed' | 'already-fixed' | 'error';
  readonly detail: string;
}

export interface WindowFixerRunSummary {
  readonly skipped: 'not-leader' | null;
  readonly fixes: readonly WindowFix[];
}

/**
 * Fixes the PPLNS window of each pool block soon after it is found (leader role): reads the shares
 * back from the block's own share entry until `factor × the block's network difficulty`, turns them
 * into per-address weights (`pplnsWindowWeights`, the same walk `pplnsSplit` does) and stores them
 * with a summary on the block record, in one fenced script that acts only while the block waits in
 * `<p>:blocks:window-pending`. The share stream is not trimmed while a block waits, so the read-back
 * always finds its entries, however many shares come in before the block unlocks. Every pool block
 * gets its window whatever the configured scheme, so a scheme change before the unlock still pays.
 *
 * Runs at the start of each unlock run and on `block-found`; runs in one process are queued, runs
 * in two processes (a leader change) give one result: the second write changes nothing.
 */
export class WindowFixer {
  readonly #opts: WindowFixerOptions;
  readonly #ledger: BlockWindowLedger;
  readonly #logger: Logger;
  readonly #fencingToken: (() => string | null) | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: WindowFixerOptions, modules: WindowFixerModules) {
    this.#opts = opts;
    this.#ledger = modules.ledger;
    this.#logger = modules.logger;
    this.#fencingToken = modules.fencingToken;
  }

  /** Fixes every waiting window; a FENCED refusal stops the run (this process lost the lead). */
  fixPending(): Promise<WindowFixerRunSummary> {
    const run = this.#queue.then(() => this.#fixAll());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #fixAll(): Promise<WindowFixerRunSummary> {
    const token = this.#fencingToken === undefined ? '' : this.#fencingToken();
    if (token === null) return { skipped: 'not-leader', fixes: [] };
    const hashes = await this.#ledger.listWindowPending(MAX_WINDOWS_PER_RUN);
    const fixes: WindowFix[] = [];
    for (const hash of hashes) {
      try {
        fixes.push(await this.#fix(hash, token));
      } catch (error) {
        if ((error as { code?: string }).code === 'FENCED') throw error;
        // The block stays waiting (and the stream untrimmed) until a later run fixes it.
        this.#logger.error({ err: error, hash }, 'PPLNS window not fixed');
        fixes.push({
          hash,
          outcome: 'error',
          detail: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return { skipped: null, fixes };
  }

  async #fix(hash: string, token: string): Promise<WindowFix> {
    const candidate = await this.#ledger.getBlockCandidate(hash);
    if (candidate === null) {
      throw new UnlockError('BLOCK_RECORD_MISSING', 'a block waits for its window without a record', {
        hash,
      });
    }
    const windowDifficulty = pplnsWindowDifficulty(candidate.networkDifficulty, this.#opts.pplnsWindowFactor);
    const window = await this.#readWindow(candidate.shareEntryId, windowDifficulty);
    const { weights, countedDifficulty, shareCount } = pplnsWindowWeights(
      window.shares.map((share) => ({
        address: share.address,
        difficulty: BigInt(share.difficulty),
        timestampMs: share.timestampMs,
      })),
      windowDifficulty,
    );
    if (window.endReason === 'trimmed' || window.endReason === 'max-shares') {
      this.#logger.warn(
        { hash, endReason: window.endReason, windowDifficulty: windowDifficulty.toString() },
        'PPLNS window not filled: the block pays the shares that are left',
      );
    }
    const { applied } = await this.#ledger.fixBlockWindow({
      hash,
      weights,
      windowDifficulty,
      countedDifficulty,
      shareCount,
      endReason: window.endReason,
      fencingToken: token,
    });
    if (!applied) return { hash, outcome: 'already-fixed', detail: 'nothing to fix' };
    this.#logger.info(
      {
        hash,
        height: candidate.height,
        miners: weights.size,
        shares: shareCount,
        endReason: window.endReason,
      },
      'PPLNS window fixed',
    );
    return { hash, outcome: 'fixed', detail: `${weights.size} miners, ${shareCount} shares` };
  }

  /**
   * The block's window read back from its share entry. An entry already trimmed away (a refused
   * block promoted once found on the chain: nothing held the stream back before) leaves no share
   * of the window: it is fixed empty ('trimmed'), and the unlocker's empty-round policy decides,
   * instead of the block waiting for ever and the stream never being trimmed again.
   */
  async #readWindow(
    entryId: string,
    windowDifficulty: bigint,
  ): Promise<Pick<ShareWindow, 'shares' | 'endReason'>> {
    try {
      return await this.#ledger.readSharesBackFrom(entryId, windowDifficulty);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SHARE_ENTRY_MISSING') throw error;
      return { shares: [], endReason: 'trimmed' };
    }
  }
}
