import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import type { PayoutWatch } from '../../model/payouts/payout-watch.js';
import type {
  SentFusion,
  UpkeepRequest,
  UpkeepTrigger,
  WalletUpkeepRecord,
} from '../../model/payouts/wallet-upkeep-record.js';
import type { UpkeepReport } from '../../pool/payouts/payout-reports.js';
import {
  UNCONFIRMED_BLOCK_INDEX,
  WALLET_TRANSACTION_STATE,
  type WalletClient,
  walletErrorKind,
} from '../../rpc/wallet-client.js';
import type { FusionEstimate } from '../../rpc/wallet-schemas.js';

/**
 * Block count, past a fusion's block index, from which walletd spends what it joined: its
 * transfers container unlocks an output once the top block index is
 * CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE (10) past the output's block, and the block count is the
 * top index + 1.
 */
export const FUSION_SPENDABLE_BLOCKS = 11;

/** walletd requires `anonymity` and builds every fusion with no decoys whatever it says. */
const FUSION_ANONYMITY = 0;

/** The walletd calls of the upkeep (src/rpc/wallet-client.ts). */
export type UpkeepWallet = Pick<
  WalletClient,
  'estimateFusion' | 'sendFusionTransaction' | 'getStatus' | 'getAddresses' | 'getTransaction'
>;

/** The upkeep's rules, mapped from `payments.payouts.walletUpkeep` in src/app. */
export interface WalletUpkeepOptions {
  /** false: no consolidation of its own (the operator's `fuego-pool wallet optimize` still runs). */
  readonly enabled: boolean;
  /** Only outputs below this are joined (walletd's fusion `threshold`). */
  readonly thresholdAtomic: bigint;
  /** Consolidate when fusionReadyCount / totalOutputCount reaches this (0 < share <= 1). */
  readonly readyShare: number;
  readonly maxFusionsPerRun: number;
  /** Where the joined outputs go (the payouts' change address); undefined: the wallet's first address. */
  readonly walletChangeAddress: string | undefined;
  /** The payout lock's expiry; renewed before every fusion. */
  readonly lockTtlMs: number;
}

export interface WalletUpkeepModules {
  readonly wallet: UpkeepWallet;
  /** The payout runner's lock and open batches: fusions never run beside a payout pass or an open batch. */
  readonly journal: Pick<PayoutJournal, 'acquireLock' | 'renewLock' | 'releaseLock' | 'listOpenBatches'>;
  /** The runner's send backoff, lifted once the fusions are spendable. */
  readonly watch: Pick<PayoutWatch, 'clearBackoff'>;
  readonly record: WalletUpkeepRecord;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Leader fencing: the token this process holds, or null when it may not act. */
  readonly fencingToken?: () => string | null;
}

/**
 * Wallet upkeep. A pool wallet fills with small coinbase outputs; a large payout then needs so
 * many inputs that walletd refuses it ("Transaction size is too big", or "MixIn count is too big"
 * for the rare amounts among them), over and over. The upkeep joins them with walletd's fusion
 * transactions (zero fee, 12+ outputs of one power of ten below a threshold, back to the wallet):
 * - when the payout runner reports such a refusal (`request`), or when estimateFusion says
 *   `readyShare` of the wallet's outputs could be joined, or when the operator asks;
 * - only with no payout batch open, under the payout lock, up to maxFusionsPerRun fusions;
 * - the fusions are remembered in Redis; until walletd can spend what they joined the report says
 *   `pending` and the leader holds the payout pass; then the runner's send backoff is lifted, so
 *   the refused payout is tried again at once.
 */
export class WalletUpkeep {
  readonly #opts: WalletUpkeepOptions;
  readonly #modules: WalletUpkeepModules;
  readonly #record: WalletUpkeepRecord;
  readonly #logger: Logger;
  readonly #clock: () => number;
  /** A request seen in this process and not handled yet (Redis has it too, for other processes). */
  #requested: UpkeepRequest | null = null;

  constructor(opts: WalletUpkeepOptions, modules: WalletUpkeepModules) {
    if (!(opts.readyShare > 0 && opts.readyShare <= 1)) throw new RangeError('readyShare must be in (0, 1]');
    if (opts.maxFusionsPerRun < 1) throw new RangeError('maxFusionsPerRun must be >= 1');
    this.#opts = opts;
    this.#modules = modules;
    this.#record = modules.record;
    this.#logger = modules.logger;
    this.#clock = modules.clock ?? Date.now;
  }

  /**
   * The payout runner's onRepeatingRefusal: the wallet's outputs need consolidating. Remembered
   * here and in Redis; acted on by the next run (the leader runs one right after the pass).
   */
  request(reason: string): void {
    if (!this.#opts.enabled) return;
    const request = { reason, atMs: this.#clock() };
    this.#requested = request;
    this.#logger.info(
      { reason },
      'wallet upkeep: the wallet refused a payout; its outputs will be consolidated',
    );
    this.#record.setRequest(request).catch((error: unknown) => {
      this.#logger.warn({ err: error }, 'wallet upkeep: request not stored (kept in this process only)');
    });
  }

  /** Whether a refusal was reported to this process and no run has handled it yet. */
  hasRequest(): boolean {
    return this.#requested !== null;
  }

  /**
   * One run: settles the fusions sent earlier, then consolidates if wanted. `operator`: the
   * operator asked (`fuego-pool wallet optimize`): whatever is ready is joined, enabled or not.
   */
  async runOnce(options: { operator?: boolean } = {}): Promise<UpkeepReport> {
    const operator = options.operator === true;
    const settled = await this.#settleFusions();
    if (settled.pending.length > 0) {
      return {
        ...emptyReport(
          'pending',
          `waiting for ${settled.pending.length} fusion transactions to be spendable`,
        ),
        confirmed: settled.confirmed,
        pending: settled.pending,
      };
    }
    const finish = (report: UpkeepReport): UpkeepReport => ({ ...report, confirmed: settled.confirmed });
    if (!operator && !this.#opts.enabled) return finish(emptyReport('idle', 'wallet upkeep is disabled'));
    // Payouts go first once fusions are spendable: a wallet that keeps filling up would otherwise
    // be consolidated again before the payout the last consolidation was for.
    if (!operator && settled.confirmed.length > 0) {
      return finish(emptyReport('idle', 'the fusion transactions are spendable: payouts go first'));
    }
    if (this.#modules.fencingToken?.() === null) {
      return finish(emptyReport('deferred', 'this process is not the leader'));
    }
    const lockToken = randomUUID();
    if (!(await this.#modules.journal.acquireLock(lockToken, this.#opts.lockTtlMs))) {
      return finish(emptyReport('deferred', 'a payout run holds the payout lock'));
    }
    try {
      return finish(await this.#consolidate(lockToken, operator));
    } finally {
      await this.#modules.journal.releaseLock(lockToken).catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'payout lock not released; it expires by itself');
      });
    }
  }

  async #consolidate(lockToken: string, operator: boolean): Promise<UpkeepReport> {
    const request = this.#requested ?? (await this.#record.getRequest());
    const open = await this.#modules.journal.listOpenBatches();
    if (open.length > 0) {
      const detail = `${open.length} payout batch(es) still open (${open.map((b) => b.id).join(', ')}): fusions wait until they are settled`;
      if (operator || request !== null)
        this.#logger.warn({ reason: request?.reason }, `wallet upkeep: ${detail}`);
      return emptyReport('deferred', detail);
    }

    let estimate: FusionEstimate;
    try {
      estimate = await this.#estimate();
    } catch (error) {
      return this.#walletFailed('estimateFusion', error, request !== null || operator);
    }
    const trigger: UpkeepTrigger | null = operator
      ? 'operator'
      : request !== null
        ? 'refusal'
        : this.#shareReached(estimate)
          ? 'share'
          : null;
    const shareText = `${estimate.fusionReadyCount} of ${estimate.totalOutputCount} outputs ready to join`;
    if (trigger === null) {
      this.#logger.debug({ ...estimate }, 'wallet upkeep: no consolidation needed');
      return { ...emptyReport('idle', `no consolidation needed: ${shareText}`), estimate };
    }
    if (estimate.fusionReadyCount === 0) {
      await this.#handled(request);
      if (trigger === 'refusal') {
        this.#logger.warn(
          { reason: request?.reason, ...estimate, thresholdAtomic: this.#opts.thresholdAtomic.toString() },
          'wallet upkeep: the wallet refused a payout but has no outputs to join under the threshold (payouts resume after the backoff)',
        );
      }
      return { ...emptyReport('idle', `nothing to consolidate: ${shareText}`), trigger, estimate };
    }

    const { sent, stop, last } = await this.#sendFusions(lockToken, trigger, estimate);
    if (sent.length > 0 || stop === null) await this.#handled(request);
    const pendingText =
      sent.length === 0 ? '' : `; payouts wait until they are ${FUSION_SPENDABLE_BLOCKS} blocks deep`;
    const detail = `${sent.length} fusion transaction(s) sent (${trigger}: ${shareText})${pendingText}${stop === null ? '' : `; stopped: ${stop.detail}`}`;
    const state = sent.length > 0 ? 'pending' : (stop?.state ?? 'idle');
    if (sent.length > 0)
      this.#logger.info({ sent, trigger, ...last }, 'wallet upkeep: consolidating the wallet');
    return { state, detail, trigger, estimate: last, sent, confirmed: [], pending: sent };
  }

  /**
   * Fusion transactions, one at a time, while outputs are ready to join (at most maxFusionsPerRun),
   * each recorded as it is sent; stops when the payout lock is lost or the wallet fails.
   */
  async #sendFusions(
    lockToken: string,
    trigger: UpkeepTrigger,
    estimate: FusionEstimate,
  ): Promise<{ sent: string[]; stop: Pick<UpkeepReport, 'state' | 'detail'> | null; last: FusionEstimate }> {
    const destinationAddress =
      this.#opts.walletChangeAddress ?? (await this.#modules.wallet.getAddresses())[0];
    const sent: string[] = [];
    let last = estimate;
    while (sent.length < this.#opts.maxFusionsPerRun && last.fusionReadyCount > 0) {
      if (!(await this.#modules.journal.renewLock(lockToken, this.#opts.lockTtlMs))) {
        return { sent, stop: { state: 'deferred', detail: 'payout lock lost' }, last };
      }
      try {
        const { transactionHash } = await this.#modules.wallet.sendFusionTransaction({
          thresholdAtomic: this.#opts.thresholdAtomic,
          anonymity: FUSION_ANONYMITY,
          ...(destinationAddress === undefined ? {} : { destinationAddress }),
        });
        sent.push(transactionHash);
        await this.#record.addFusion({ txHash: transactionHash, sentAtMs: this.#clock(), trigger });
        this.#logger.info(
          {
            txHash: transactionHash,
            trigger,
            ...last,
            thresholdAtomic: this.#opts.thresholdAtomic.toString(),
          },
          'wallet upkeep: fusion transaction sent',
        );
      } catch (error) {
        const kind = walletErrorKind(error);
        // No power of ten has 12 outputs ready (any more): the wallet is as joined as it gets.
        if (kind === 'FUSION_NOTHING_TO_OPTIMIZE' || kind === 'FUSION_TOO_FEW_INPUTS') break;
        return { sent, stop: this.#walletFailed('sendFusionTransaction', error, true), last };
      }
      try {
        last = await this.#estimate();
      } catch (error) {
        return { sent, stop: this.#walletFailed('estimateFusion', error, true), last };
      }
    }
    return { sent, stop: null, last };
  }

  #estimate(): Promise<FusionEstimate> {
    return this.#modules.wallet.estimateFusion({ thresholdAtomic: this.#opts.thresholdAtomic });
  }

  /** A share of output counts, not money: a float comparison is exact enough. */
  #shareReached(estimate: FusionEstimate): boolean {
    if (estimate.totalOutputCount === 0 || estimate.fusionReadyCount === 0) return false;
    return estimate.fusionReadyCount >= this.#opts.readyShare * estimate.totalOutputCount;
  }

  /** The request (if any) was acted on: a new refusal makes a new one. */
  async #handled(request: UpkeepRequest | null): Promise<void> {
    if (request === null) return;
    this.#requested = null;
    await this.#record.clearRequest();
  }

  /** A wallet call failed: later (not synced, unreachable); logged when consolidation was wanted. */
  #walletFailed(call: string, error: unknown, wanted: boolean): UpkeepReport {
    const kind = walletErrorKind(error);
    const detail =
      kind === 'DAEMON_NOT_SYNCED'
        ? 'the wallet is not synchronized with its daemon: fusions wait'
        : `${call} failed: ${error instanceof Error ? error.message : String(error)}`;
    if (wanted) this.#logger.warn({ err: error, call }, `wallet upkeep: ${detail}`);
    return emptyReport('deferred', detail);
  }

  /**
   * Sorts the remembered fusions: spendable ones (and ones walletd never sent or dropped) are
   * forgotten; the rest stay pending. When the last one becomes spendable the runner's send
   * backoff is lifted: the payout it paused can use the joined outputs now.
   */
  async #settleFusions(): Promise<{ pending: string[]; confirmed: string[] }> {
    const fusions = await this.#record.listFusions();
    if (fusions.length === 0) return { pending: [], confirmed: [] };
    const { blockCount } = await this.#modules.wallet.getStatus();
    const pending: string[] = [];
    const confirmed: string[] = [];
    const dropped: string[] = [];
    for (const fusion of fusions) {
      const outcome = await this.#fusionOutcome(fusion, blockCount);
      (outcome === 'spendable' ? confirmed : outcome === 'dropped' ? dropped : pending).push(fusion.txHash);
    }
    await this.#record.removeFusions([...confirmed, ...dropped]);
    if (pending.length === 0 && confirmed.length > 0) {
      await this.#modules.watch.clearBackoff();
      this.#logger.info(
        { confirmed, dropped },
        'wallet upkeep: the fusion transactions are spendable; payouts resume at once',
      );
    }
    return { pending, confirmed };
  }

  async #fusionOutcome(fusion: SentFusion, blockCount: number): Promise<'spendable' | 'dropped' | 'pending'> {
    let transaction: Awaited<ReturnType<UpkeepWallet['getTransaction']>>;
    try {
      transaction = await this.#modules.wallet.getTransaction(fusion.txHash);
    } catch (error) {
      if (walletErrorKind(error) !== 'OBJECT_NOT_FOUND') throw error;
      this.#logger.warn(
        { txHash: fusion.txHash },
        'wallet upkeep: the wallet has no record of a fusion it sent',
      );
      return 'dropped';
    }
    if (transaction.state !== WALLET_TRANSACTION_STATE.SUCCEEDED) {
      this.#logger.warn(
        { txHash: fusion.txHash, state: transaction.state },
        'wallet upkeep: a fusion transaction was not relayed or was dropped; its outputs are free again',
      );
      return 'dropped';
    }
    if (transaction.blockIndex === UNCONFIRMED_BLOCK_INDEX) return 'pending';
    return blockCount - transaction.blockIndex >= FUSION_SPENDABLE_BLOCKS ? 'spendable' : 'pending';
  }
}

function emptyReport(state: UpkeepReport['state'], detail: string): UpkeepReport {
  return { state, detail, trigger: null, estimate: null, sent: [], confirmed: [], pending: [] };
}
