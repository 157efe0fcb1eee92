import type { Logger } from '../../log/logger.js';
import type { StoredBlockCandidate } from '../../model/blocks/stored-block.js';
import type { BlockCredit, PendingCreditEstimates, UnlockLedger } from '../../model/blocks/unlock-ledger.js';
import { orphanedRoundRule } from '../../pool/schemes/orphaned-round-rule.js';
import type { PaymentSchemeName } from '../../pool/schemes/payment-scheme-name.js';
import { pplnsWindowDifficulty } from '../../pool/schemes/pplns-window.js';
import { pplnsWindowWeights } from '../../pool/schemes/pplns-window-weights.js';
import { soloSplit } from '../../pool/schemes/solo.js';
import type { EmptyRoundPolicy, FeePolicy, PaymentSplit } from '../../pool/schemes/types.js';
import { weightedSplit } from '../../pool/schemes/weighted-split.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { RpcError } from '../../rpc/rpc-error.js';
import { CreditWatch, type CreditWatchChain } from './credit-watch.js';
import type { CandidateDecision, UnlockerRunSummary } from './unlock-decision.js';
import { UnlockError } from './unlock-error.js';
import type { UnlockRunListener } from './unlock-run-listener.js';
import type { WindowFixer } from './window-fixer.js';

/** Candidates examined per run (pages of listBlockCandidates). */
const MAX_CANDIDATES_PER_RUN = 2_000;
const CANDIDATE_PAGE = 500;
/** Refused blocks looked at per run: the newest ones (refusals are rare; most are explained). */
const REFUSALS_PER_RUN = 500;
/** fuegod: "To big height" - the height is not (yet) in the main chain. */
const TOO_BIG_HEIGHT = -2;

/** Pending estimates outlive any realistic unlock delay, then expire on their own. */
const PENDING_PREVIEW_TTL_MS = 7 * 24 * 3_600_000;

/** The unlocker's rules, mapped from `payments` in src/app (the defaults live in the config schema). */
export interface BlockUnlockerOptions {
  readonly scheme: PaymentSchemeName;
  /** Pool blocks use `pool`, solo blocks `solo` (its finder bonus is ignored by SOLO). */
  readonly fee: { readonly pool: FeePolicy; readonly solo: FeePolicy };
  /**
   * Blocks on top of its height (the daemon header's `depth`) at which a block is decided:
   * credited if it is the main chain's block there, orphaned if another block is.
   */
  readonly confirmDepth: number;
  /** After crediting, a block is checked for a deeper reorg until confirmDepth + this deep. */
  readonly reorgWatchBlocks: number;
  /** Below that, the credited blocks of this many more heights are audited the same way; 0: none. */
  readonly reorgAuditBlocks: number;
  /** Time between two such audits, at least. */
  readonly reorgAuditIntervalMs: number;
  readonly pplnsWindowFactor: number;
  readonly emptyRound: EmptyRoundPolicy;
}

/** The chain as the unlocker reads it: the main chain's block at a height, and its reorg watch's reads. */
export type UnlockerChain = Pick<DaemonClient, 'getBlockHeaderByHeight'> & CreditWatchChain;

type ChainHeader = Awaited<ReturnType<UnlockerChain['getBlockHeaderByHeight']>>;

export interface BlockUnlockerModules {
  readonly ledger: UnlockLedger;
  /** Fixes found blocks' PPLNS windows; run first in each unlock run. */
  readonly windows: WindowFixer;
  readonly pendingEstimates: PendingCreditEstimates;
  readonly daemon: UnlockerChain;
  readonly logger: Logger;
  /**
   * Leader fencing: the token this process holds, or null when it may not write (then the run does
   * nothing). Without the hook the scripts are unfenced (single process).
   */
  readonly fencingToken?: () => string | null;
  /** When the reorg audit is due; Date.now without it. */
  readonly clock?: () => number;
}

/**
 * Decides every pending block candidate against the daemon's main chain (leader role). The depth
 * of a height is the daemon header's `depth` (blocks on top of it: chain height - 1 - height), the
 * same for whichever block holds it, and one rule decides with it:
 * - depth < confirmDepth -> stays pending whatever block holds the height: the candidate's own
 *   (its confirmations are recorded, and the miners' pending estimate written), or another one
 *   (noted "not on the main chain"): a short reorg may still bring it back, so nothing is final.
 * - depth >= confirmDepth and the same hash -> confirmed: the split of the header's reward
 *   (coinbase + fees) is credited and the status flipped in ONE script, idempotent by block hash.
 * - depth >= confirmDepth and another hash -> orphaned (final): nothing credited; the scheme's
 *   rule says what happens to its round (PROP merges it into the current round, PPLNS needs
 *   nothing: the shares are still in the stream, SOLO has none). `orphan_status` is not consulted:
 *   the real daemon does not report it reliably.
 * - the daemon answers "To big height" (the chain is shorter than the height, after a reorg to a
 *   shorter chain or while the daemon resyncs) -> stays pending: nothing holds the height yet.
 * A block refused at submitblock is not a candidate: the stratum side's diagnosis promotes it to
 * one if the chain holds it after all (`already-on-chain`). When no diagnosis explained the
 * refusal (`unknown`: the daemon did not answer in time; none: the process stopped first), or the
 * block was stale (`stale-tip`: fuegod keeps a valid stale block as an alternative block, and a
 * reorg can put it on the main chain later), the unlocker asks the chain itself, first in each run
 * (see #recheckRefusal): the main chain's block
 * at its height -> promoted the same way (it then closes its round and is decided above, from this
 * run on; the run's listener is told, once); another block there confirmDepth deep -> noted off
 * the chain and never asked again; a shallower other block, a height above the tip or a daemon
 * error -> asked again next run.
 *
 * Every scheme credits by weights fixed when the block was found: PPLNS by the window the
 * WindowFixer stored (run first in each run), PROP by the round the block closed, SOLO the finder.
 * A PPLNS block recorded before windows were fixed falls back to reading its window back from the
 * share stream (SHARE_ENTRY_MISSING if it was trimmed). A candidate whose split cannot be computed
 * stays pending and is reported as an error for the operator; nothing is credited on a guess.
 *
 * Last in each run, the reorg watch (credit-watch.ts) checks the credited blocks that are not yet
 * confirmDepth + reorgWatchBlocks deep: one replaced at its height is flagged
 * ('orphaned-after-credit', once), its credits left for the operator; at most once per
 * reorgAuditIntervalMs it also audits the credited blocks of the reorgAuditBlocks heights below
 * that window, flagging a replaced one the same way.
 */
export class BlockUnlocker {
  readonly #opts: BlockUnlockerOptions;
  readonly #daemon: UnlockerChain;
  readonly #logger: Logger;
  readonly #fencingToken: (() => string | null) | undefined;
  readonly #ledger: UnlockLedger;
  readonly #pending: PendingCreditEstimates;
  readonly #watch: CreditWatch;
  /** The window fixer this unlocker runs first; the leader also runs it on `block-found`. */
  readonly windows: WindowFixer;

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
    this.windows = modules.windows;
    const { confirmDepth, reorgWatchBlocks, reorgAuditBlocks, reorgAuditIntervalMs, scheme } = opts;
    const { ledger, daemon, logger, clock } = modules;
    this.#watch = new CreditWatch(
      { confirmDepth, reorgWatchBlocks, reorgAuditBlocks, reorgAuditIntervalMs, scheme },
      { ledger, daemon, logger, ...(clock ? { clock } : {}) },
    );
  }

  async runOnce(listener: UnlockRunListener = {}): Promise<UnlockerRunSummary> {
    const token = this.#token();
    if (token === null) return { skipped: 'not-leader', decisions: [] };
    // Refused blocks found on the chain first, then windows: a promoted block gets its window
    // fixed and is listed with the candidates next, which carry their fixed windows.
    const decisions = await this.#recheckRefusals(token, listener);
    await this.windows.fixPending();
    const candidates = await this.#pendingCandidates();
    for (const candidate of candidates) {
      let decision: CandidateDecision;
      try {
        decision = await this.#decide(candidate, token);
      } catch (error) {
        decision = this.#failed(candidate, error, 'block unlock failed');
      }
      decisions.push(decision);
      if (decision.outcome === 'confirmed' || decision.outcome === 'orphaned') {
        await this.#pending.remove(candidate.hash).catch(() => undefined);
      }
    }
    decisions.push(...(await this.#watch.runOnce(token, listener)));
    return { skipped: null, decisions };
  }

  /** A candidate whose check threw: reported, left as it is for the next run. */
  #failed(candidate: StoredBlockCandidate, error: unknown, message: string): CandidateDecision {
    // A fencing refusal stops the run: this process is no longer the leader.
    if ((error as { code?: string }).code === 'FENCED') throw error;
    const detail = error instanceof Error ? error.message : String(error);
    this.#logger.error({ err: error, hash: candidate.hash, height: candidate.height }, message);
    return { hash: candidate.hash, height: candidate.height, outcome: 'error', detail };
  }

  #token(): string | null {
    if (this.#fencingToken === undefined) return '';
    return this.#fencingToken();
  }

  /** Lowest height first: the oldest can be decided; beyond a run's reach, the newest wait. */
  async #pendingCandidates(): Promise<StoredBlockCandidate[]> {
    const pending: StoredBlockCandidate[] = [];
    for (let offset = 0; offset < MAX_CANDIDATES_PER_RUN; offset += CANDIDATE_PAGE) {
      const request = { offset, limit: CANDIDATE_PAGE, lowestFirst: true };
      const page = await this.#ledger.listBlockCandidates(request);
      pending.push(...page.filter((c) => c.status === 'pending'));
      if (page.length < CANDIDATE_PAGE) break;
    }
    return pending;
  }

  /** Every refusal that may be on the chain, against it, promotions told to `listener`; errors are not final. */
  async #recheckRefusals(token: string, listener: UnlockRunListener): Promise<CandidateDecision[]> {
    const errors: CandidateDecision[] = [];
    for (const refused of await this.#ledger.listRefusalsToRecheck(REFUSALS_PER_RUN)) {
      let promoted = false;
      try {
        promoted = await this.#recheckRefusal(refused, token);
      } catch (error) {
        errors.push(this.#failed(refused, error, 'refused block not checked against the chain'));
      }
      if (promoted) {
        const { hash, height, finderAddress, solo, timestampMs } = refused;
        listener.onPromoted?.({ hash, height, finderAddress, solo, timestampMs });
      }
    }
    return errors;
  }

  /**
   * A refused block no diagnosis explained may be on the chain after all (a daemon answering -7
   * for a block it took, or a duplicate submit), and so may a stale one (kept as an alternative
   * block, then put on the main chain by a reorg); then its miners are owed its reward. If the
   * main chain holds this very hash at its height it is promoted as the stratum side would have
   * (the same script, fenced: a stale leader changes nothing), and decided as a candidate. If
   * another block holds the height confirmDepth deep it is off the chain for good: noted so, it
   * stays refused. Otherwise (shallower, above the tip) it waits for the next run.
   * Returns whether this call promoted it (false when the stratum side or an earlier run did).
   */
  async #recheckRefusal(refused: StoredBlockCandidate, token: string): Promise<boolean> {
    const { hash, height } = refused;
    const header = await this.#headerAt(height);
    if (header === null) return false;
    if (header.hash === hash) {
      const { promoted } = await this.#ledger.promoteRefusedBlock({ hash, height, fencingToken: token });
      if (promoted) {
        this.#logger.warn(
          { hash, height, depth: header.depth, refusalReason: refused.refusalReason },
          'block refused at submitblock is on the main chain: promoted to a pending candidate',
        );
      }
      return promoted;
    }
    if (header.depth < this.#opts.confirmDepth) return false;
    await this.#ledger.noteRefusalOffChain({
      hash,
      observedHash: header.hash,
      note: `refused and not on the chain: another block at height ${height}, ${header.depth} deep`,
      fencingToken: token,
    });
    this.#logger.info(
      { hash, height, depth: header.depth, mainChainHash: header.hash },
      'refused block is not on the main chain',
    );
    return false;
  }

  /**
   * One pending block against the chain: above the tip or replaced while shallower than
   * confirmDepth it stays pending with a note; at confirmDepth it is credited if the chain holds it
   * and orphaned if another block holds its height. A refused block promoted (found on the chain)
   * is decided the same way.
   */
  async #decide(candidate: StoredBlockCandidate, token: string): Promise<CandidateDecision> {
    const { hash, height } = candidate;
    const header = await this.#headerAt(height);
    if (header === null) {
      await this.#offMainChain(candidate, token, 'height above the chain tip');
      return { hash, height, outcome: 'above-tip', detail: 'the chain is shorter than this height' };
    }
    if (header.depth < this.#opts.confirmDepth) return this.#observeShallow(candidate, header, token);
    if (header.hash !== hash) return this.#orphanReplaced(candidate, header, token);
    return this.#credit(candidate, header, token);
  }

  /** The main chain's block at `height`, or null while the chain is shorter. */
  async #headerAt(height: number): Promise<ChainHeader | null> {
    try {
      return await this.#daemon.getBlockHeaderByHeight(height);
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === TOO_BIG_HEIGHT) return null;
      throw error;
    }
  }

  /** Shallower than confirmDepth: nothing is decided; the API and the pending estimate are told. */
  async #observeShallow(
    candidate: StoredBlockCandidate,
    header: ChainHeader,
    token: string,
  ): Promise<CandidateDecision> {
    const { hash, height } = candidate;
    const atDepth = `${header.depth}/${this.#opts.confirmDepth}`;
    if (header.hash !== hash) {
      await this.#offMainChain(
        candidate,
        token,
        `not on the main chain at depth ${atDepth}: another block at this height`,
      );
      return { hash, height, outcome: 'not-on-main-chain', detail: `main chain has ${header.hash} for now` };
    }
    await this.#previewPendingCredits(candidate, BigInt(header.reward));
    await this.#ledger.observeBlock({
      hash,
      confirmations: header.depth,
      onMainChain: true,
      note: `${atDepth} confirmations`,
      fencingToken: token,
    });
    return { hash, height, outcome: 'pending', detail: `${atDepth} confirmations` };
  }

  /** Another block holds the height at confirmDepth: orphaned, its round shares by the scheme's rule. */
  async #orphanReplaced(
    candidate: StoredBlockCandidate,
    header: ChainHeader,
    token: string,
  ): Promise<CandidateDecision> {
    const { hash, height } = candidate;
    const scheme = candidate.solo ? 'solo' : this.#opts.scheme;
    const rule = orphanedRoundRule(scheme);
    const orphaned = await this.#ledger.orphanBlock({
      hash,
      height,
      mergeRound: rule.roundShares === 'merge-into-current-round' && candidate.round !== null,
      reason: `another block at height ${height}, ${header.depth} deep`,
      observedHash: header.hash,
      fencingToken: token,
    });
    this.#logger.warn(
      { hash, height, depth: header.depth, mainChainHash: header.hash, rule: rule.roundShares },
      'block orphaned',
    );
    return {
      hash,
      height,
      outcome: orphaned.applied ? 'orphaned' : 'already-decided',
      detail: `main chain has ${header.hash}`,
    };
  }

  /** On the chain at confirmDepth: the reward split by the weights fixed at find time, credited once. */
  async #credit(
    candidate: StoredBlockCandidate,
    header: ChainHeader,
    token: string,
  ): Promise<CandidateDecision> {
    const { hash, height } = candidate;
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
      hash,
      height,
      outcome: outcome.applied ? 'confirmed' : 'already-decided',
      detail: outcome.applied
        ? `credited ${split.credits.size} miners (${scheme})`
        : `status ${outcome.status}`,
      rewardAtomic,
    };
  }

  /**
   * A pending block that is not on the main chain now (another block at its height, or none yet):
   * noted for the API, and out of the miners' pending estimate until it is back.
   */
  async #offMainChain(candidate: StoredBlockCandidate, token: string, note: string): Promise<void> {
    const observed = { hash: candidate.hash, confirmations: 0, onMainChain: false, note };
    await this.#ledger.observeBlock({ ...observed, fencingToken: token });
    await this.#pending.remove(candidate.hash).catch((error: unknown) => {
      this.#logger.warn({ err: error, hash: candidate.hash }, 'pending credit estimate not removed');
    });
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

  /** One path for every scheme: SOLO pays the finder, PPLNS and PROP split by fixed weights. */
  async #split(
    candidate: StoredBlockCandidate,
    reward: bigint,
  ): Promise<{ split: PaymentSplit; scheme: PaymentSchemeName }> {
    const finder = candidate.finderAddress;
    if (candidate.solo || this.#opts.scheme === 'solo') {
      return { split: soloSplit({ reward, finder, fee: this.#opts.fee.solo }), scheme: 'solo' };
    }
    const scheme = this.#opts.scheme;
    const weights =
      scheme === 'prop'
        ? await this.#ledger.getRoundContributions({ height: candidate.height, hash: candidate.hash })
        : await this.#pplnsWeights(candidate);
    const split = weightedSplit({
      reward,
      weights,
      finder,
      fee: this.#opts.fee.pool,
      emptyRound: this.#opts.emptyRound,
    });
    return { split, scheme };
  }

  /** The window fixed at find time; for a block recorded before that existed, the read-back. */
  async #pplnsWeights(candidate: StoredBlockCandidate): Promise<Map<string, bigint>> {
    const { hash } = candidate;
    if (candidate.window !== null) return this.#ledger.getBlockWindow(hash);
    if (await this.#ledger.isWindowPending(hash)) {
      throw new UnlockError('WINDOW_NOT_FIXED', 'the block’s PPLNS window is not fixed yet', { hash });
    }
    const windowDifficulty = pplnsWindowDifficulty(candidate.networkDifficulty, this.#opts.pplnsWindowFactor);
    const window = await this.#ledger.readSharesBackFrom(candidate.shareEntryId, windowDifficulty);
    if (window.endReason === 'trimmed' || window.endReason === 'max-shares') {
      this.#logger.warn(
        { hash, endReason: window.endReason, windowDifficulty: windowDifficulty.toString() },
        'PPLNS window not filled: paying the shares that are left',
      );
    }
    const shares = window.shares.map((share) => ({
      address: share.address,
      difficulty: BigInt(share.difficulty),
      timestampMs: share.timestampMs,
    }));
    return pplnsWindowWeights(shares, windowDifficulty).weights;
  }
}
