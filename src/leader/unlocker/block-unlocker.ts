import type { Logger } from '../../log/logger.js';
import type { StoredBlockCandidate } from '../../pool/blocks/stored-block.js';
import type { BlockCredit, PendingCreditEstimates, UnlockLedger } from '../../pool/blocks/unlock-ledger.js';
import { computeSplit } from '../../pool/schemes/compute-split.js';
import { orphanedRoundRule } from '../../pool/schemes/orphaned-round-rule.js';
import type { PaymentSchemeName } from '../../pool/schemes/payment-scheme-name.js';
import { pplnsWindowDifficulty } from '../../pool/schemes/pplns-window.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from '../../pool/schemes/types.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { RpcError } from '../../rpc/rpc-error.js';

/** Candidates examined per run (pages of listBlockCandidates). */
const MAX_CANDIDATES_PER_RUN = 2_000;
const CANDIDATE_PAGE = 500;
/** fuegod: "To big height" - the height is not (yet) in the main chain. */
const TOO_BIG_HEIGHT = -2;

/** Pending estimates outlive any realistic unlock delay, then expire on their own. */
const PENDING_PREVIEW_TTL_MS = 7 * 24 * 3_600_000;

/** The unlocker's rules, mapped from `payments` in src/app (the defaults live in the config schema). */
export interface BlockUnlockerOptions {
  readonly scheme: PaymentSchemeName;
  /** Pool blocks use `pool`, solo blocks `solo` (its finder bonus is ignored by SOLO). */
  readonly fee: { readonly pool: FeePolicy; readonly solo: FeePolicy };
  /** Blocks on top at which a block is credited. */
  readonly confirmDepth: number;
  readonly pplnsWindowFactor: number;
  readonly emptyRound: EmptyRoundPolicy;
}

/** The chain as the unlocker reads it: the main chain's block at a height. */
export type UnlockerChain = Pick<DaemonClient, 'getBlockHeaderByHeight'>;

export interface BlockUnlockerModules {
  readonly ledger: UnlockLedger;
  readonly pendingEstimates: PendingCreditEstimates;
  readonly daemon: UnlockerChain;
  readonly logger: Logger;
  /**
   * Leader fencing: the token this process holds, or null when it may not write (then the run does
   * nothing). Without the hook the scripts are unfenced (single process).
   */
  readonly fencingToken?: () => string | null;
}

export type CandidateOutcome =
  | 'confirmed'
  | 'orphaned'
  | 'pending'
  | 'above-tip'
  | 'already-decided'
  | 'error';

export interface CandidateDecision {
  readonly hash: string;
  readonly height: number;
  readonly outcome: CandidateOutcome;
  readonly detail: string;
  readonly rewardAtomic?: bigint;
}

export interface UnlockerRunSummary {
  readonly skipped: 'not-leader' | null;
  readonly decisions: readonly CandidateDecision[];
}

/**
 * Decides every pending block candidate against the daemon's main chain (leader role):
 * - the hash at the candidate's height differs -> orphaned: nothing credited; the scheme's rule
 *   says what happens to its round (PROP merges it into the current round, PPLNS needs nothing:
 *   the shares are still in the window, SOLO has none). `orphan_status` is not consulted: the real
 *   daemon does not report it reliably.
 * - same hash and depth >= confirmDepth -> confirmed: the split of the header's reward (coinbase +
 *   fees) is credited and the status flipped in ONE script, idempotent by block hash.
 * - same hash, shallower -> stays pending; its confirmations are recorded.
 * - the daemon answers "To big height" (the chain is now shorter than the candidate's height, after
 *   a reorg to a shorter chain or while the daemon resyncs) -> stays pending. The block is not on
 *   the main chain right now, but no other block holds its height either, so it may come back;
 *   it is orphaned as soon as a different block is seen at that height.
 * - submitblock said 'rejected' -> orphaned at once (it never entered the chain; it closed no round).
 * A candidate whose split cannot be computed (e.g. its PPLNS share entry was trimmed) stays pending
 * and is reported as an error for the operator; nothing is credited on a guess.
 */
export class BlockUnlocker {
  readonly #opts: BlockUnlockerOptions;
  readonly #daemon: UnlockerChain;
  readonly #logger: Logger;
  readonly #fencingToken: (() => string | null) | undefined;
  readonly #ledger: UnlockLedger;
  readonly #pending: PendingCreditEstimates;

  constructor(opts: BlockUnlockerOptions, modules: BlockUnlockerModules) {
    if (!Number.isSafeInteger(opts.confirmDepth) || opts.confirmDepth < 1) {
      throw new RangeError('confirmDepth must be an integer >= 1');
    }
    this.#opts = opts;
    this.#daemon = modules.daemon;
    this.#logger = modules.logger;
    this.#fencingToken = modules.fencingToken;
    this.#ledger = modules.ledger;
    this.#pending = modules.pendingEstimates;
  }

  async runOnce(): Promise<UnlockerRunSummary> {
    const token = this.#token();
    if (token === null) return { skipped: 'not-leader', decisions: [] };
    const candidates = await this.#pendingCandidates();
    const decisions: CandidateDecision[] = [];
    for (const candidate of candidates) {
      let decision: CandidateDecision;
      try {
        decision = await this.#decide(candidate, token);
      } catch (error) {
        // A fencing refusal stops the run: this process is no longer the leader.
        if ((error as { code?: string }).code === 'FENCED') throw error;
        const detail = error instanceof Error ? error.message : String(error);
        this.#logger.error(
          { err: error, hash: candidate.hash, height: candidate.height },
          'block unlock failed',
        );
        decision = { hash: candidate.hash, height: candidate.height, outcome: 'error', detail };
      }
      decisions.push(decision);
      if (decision.outcome === 'confirmed' || decision.outcome === 'orphaned') {
        await this.#pending.remove(candidate.hash).catch(() => undefined);
      }
    }
    return { skipped: null, decisions };
  }

  #token(): string | null {
    if (this.#fencingToken === undefined) return '';
    return this.#fencingToken();
  }

  async #pendingCandidates(): Promise<StoredBlockCandidate[]> {
    const pending: StoredBlockCandidate[] = [];
    for (let offset = 0; offset < MAX_CANDIDATES_PER_RUN; offset += CANDIDATE_PAGE) {
      const page = await this.#ledger.listBlockCandidates({ offset, limit: CANDIDATE_PAGE });
      pending.push(...page.filter((c) => c.status === 'pending'));
      if (page.length < CANDIDATE_PAGE) break;
    }
    // Oldest first: older blocks are the ones that can be decided.
    return pending.sort((a, b) => a.height - b.height);
  }

  async #decide(candidate: StoredBlockCandidate, token: string): Promise<CandidateDecision> {
    const { hash, height } = candidate;
    const base = { hash, height };
    if (candidate.submitResult === 'rejected') {
      const orphaned = await this.#ledger.orphanBlock({
        hash,
        height,
        mergeRound: false,
        reason: 'rejected by the daemon at submitblock',
        observedHash: '',
        fencingToken: token,
      });
      return {
        ...base,
        outcome: orphaned.applied ? 'orphaned' : 'already-decided',
        detail: 'submitblock rejected',
      };
    }

    let header: Awaited<ReturnType<BlockUnlockerModules['daemon']['getBlockHeaderByHeight']>>;
    try {
      header = await this.#daemon.getBlockHeaderByHeight(height);
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === TOO_BIG_HEIGHT) {
        await this.#ledger.observeBlock({
          hash,
          confirmations: 0,
          note: 'height above the chain tip',
          fencingToken: token,
        });
        return { ...base, outcome: 'above-tip', detail: 'the chain is shorter than this height' };
      }
      throw error;
    }

    if (header.hash !== hash) {
      const scheme = candidate.solo ? 'solo' : this.#opts.scheme;
      const rule = orphanedRoundRule(scheme);
      const orphaned = await this.#ledger.orphanBlock({
        hash,
        height,
        mergeRound: rule.roundShares === 'merge-into-current-round' && candidate.round !== null,
        reason: `another block at height ${height}`,
        observedHash: header.hash,
        fencingToken: token,
      });
      this.#logger.warn(
        { hash, height, mainChainHash: header.hash, rule: rule.roundShares },
        'block orphaned',
      );
      return {
        ...base,
        outcome: orphaned.applied ? 'orphaned' : 'already-decided',
        detail: `main chain has ${header.hash}`,
      };
    }

    if (header.depth < this.#opts.confirmDepth) {
      await this.#previewPendingCredits(candidate, BigInt(header.reward));
      await this.#ledger.observeBlock({
        hash,
        confirmations: header.depth,
        note: `${header.depth}/${this.#opts.confirmDepth} confirmations`,
        fencingToken: token,
      });
      return {
        ...base,
        outcome: 'pending',
        detail: `${header.depth}/${this.#opts.confirmDepth} confirmations`,
      };
    }

    const rewardAtomic = BigInt(header.reward);
    const { split, scheme } = await this.#split(candidate, rewardAtomic);
    const fee = candidate.solo || this.#opts.scheme === 'solo' ? this.#opts.fee.solo : this.#opts.fee.pool;
    const credits: BlockCredit[] = [...split.credits].map(([address, amountAtomic]) => ({
      address,
      amountAtomic,
      reason: 'block-credit',
    }));
    let poolFeeKeptAtomic = split.poolFee;
    if (fee.feeAddress !== undefined && split.poolFee > 0n) {
      credits.push({ address: fee.feeAddress, amountAtomic: split.poolFee, reason: 'pool-fee' });
      poolFeeKeptAtomic = 0n;
    }
    const outcome = await this.#ledger.creditBlock({
      hash,
      height,
      rewardAtomic,
      poolFeeAtomic: split.poolFee,
      poolFeeKeptAtomic,
      finderBonusAtomic: split.finderBonus,
      scheme,
      depth: header.depth,
      credits,
      fencingToken: token,
    });
    if (outcome.applied) {
      this.#logger.info(
        { hash, height, reward: rewardAtomic.toString(), miners: split.credits.size, scheme },
        'block confirmed and credited',
      );
    }
    return {
      ...base,
      outcome: outcome.applied ? 'confirmed' : 'already-decided',
      detail: outcome.applied
        ? `credited ${split.credits.size} miners (${scheme})`
        : `status ${outcome.status}`,
      rewardAtomic,
    };
  }

  /**
   * Once per block on the main chain: the split it will credit, kept as the miners' pending
   * estimate for the API. A failure here is logged, never allowed to delay the money decisions.
   */
  async #previewPendingCredits(candidate: StoredBlockCandidate, rewardAtomic: bigint): Promise<void> {
    try {
      if (await this.#pending.has(candidate.hash)) return;
      const { split } = await this.#split(candidate, rewardAtomic);
      await this.#pending.write(candidate.hash, split.credits, PENDING_PREVIEW_TTL_MS);
    } catch (error) {
      this.#logger.warn({ err: error, hash: candidate.hash }, 'pending credit estimate not written');
    }
  }

  async #split(
    candidate: StoredBlockCandidate,
    reward: bigint,
  ): Promise<{ split: PaymentSplit; scheme: PaymentSchemeName }> {
    const finder = candidate.finderAddress;
    if (candidate.solo || this.#opts.scheme === 'solo') {
      return {
        split: computeSplit({ scheme: 'solo', reward, finder, fee: this.#opts.fee.solo }),
        scheme: 'solo',
      };
    }
    const emptyRound = this.#opts.emptyRound;
    if (this.#opts.scheme === 'prop') {
      const roundContributions = await this.#ledger.getRoundContributions({
        height: candidate.height,
        hash: candidate.hash,
      });
      return {
        split: computeSplit({
          scheme: 'prop',
          reward,
          roundContributions,
          finder,
          fee: this.#opts.fee.pool,
          emptyRound,
        }),
        scheme: 'prop',
      };
    }
    const windowDifficulty = pplnsWindowDifficulty(candidate.networkDifficulty, this.#opts.pplnsWindowFactor);
    const window = await this.#ledger.readSharesBackFrom(candidate.shareEntryId, windowDifficulty);
    if (window.endReason === 'trimmed' || window.endReason === 'max-shares') {
      this.#logger.warn(
        { hash: candidate.hash, endReason: window.endReason, windowDifficulty: windowDifficulty.toString() },
        'PPLNS window not filled: paying the shares that are left',
      );
    }
    const sharesNewestFirst = window.shares.map((share) => ({
      address: share.address,
      worker: share.worker,
      difficulty: BigInt(share.difficulty),
      timestampMs: share.timestampMs,
    }));
    return {
      split: computeSplit({
        scheme: 'pplns',
        reward,
        sharesNewestFirst,
        windowDifficulty,
        finder,
        fee: this.#opts.fee.pool,
        emptyRound,
      }),
      scheme: 'pplns',
    };
  }
}
