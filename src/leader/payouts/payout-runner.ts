import { randomUUID } from 'node:crypto';
import type { FaultPoints } from '../../fault-points.js';
import type { Logger } from '../../log/logger.js';
import type { DurabilityBarrier } from '../../model/payouts/durability-barrier.js';
import type { PayableBalance, PayableBalances } from '../../model/payouts/payable-balances.js';
import type { PayoutWriter } from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import {
  type HeldPayout,
  type PayoutWatch,
  unresolvedUnnamedPayment,
} from '../../model/payouts/payout-watch.js';
import type { FeePaidBy, PlanOptions } from '../../pool/payouts/payout-planner.js';
import type {
  BatchReport,
  PassStop,
  PayoutRunSummary,
  UnminedReport,
} from '../../pool/payouts/payout-reports.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import type { SightingDaemon } from '../../pool/payouts/unmined-payouts.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { BatchSender, type IdentifiedBatch, type PayoutStep } from './batch-sender.js';
import { dueOnly, trackHeldPayouts } from './held-payouts.js';
import { type HeldEntry, heldEntry, type PassPlan, planPass } from './pass-plan.js';
import { PayoutRecovery, type UnknownPaymentCheck } from './payout-recovery.js';
import { batchReport, emptySummary, errorText } from './payout-summary.js';
import type { BackoffPolicy } from './send-backoff.js';
import { addressesHeldByUnknownPayments, unknownRecipientsStop } from './unknown-payments.js';
import { noticeUnminedBatches, type WatchedSent } from './unmined-notice.js';

/** Miners considered per run (largest balances first). */
const MAX_PAYABLE_PER_RUN = 2_000;
/** From this many blocks behind its peers walletd calls its daemon "not synchronized" (41). */
const WALLETD_MIN_DAEMON_BLOCKS_BEHIND = 2;

/** The runner's rules, mapped from `payments.payouts` in src/app (defaults live in the config schema). */
export interface PayoutRunnerOptions {
  /** This pool's id in the batch tags it writes (poolIdOf its key prefix). */
  readonly poolId: string;
  readonly minPayoutAtomic: bigint;
  readonly maxTransfersPerTransaction: number;
  readonly networkFeeAtomic: bigint;
  readonly feePaidBy: FeePaidBy;
  /** A wallet address for change; undefined: the wallet's first address. */
  readonly walletChangeAddress: string | undefined;
  readonly anonymity: number;
  readonly maxWalletLagBlocks: number;
  readonly maxBatchesPerRun: number;
  /** An ambiguous send the wallet does not know is rolled back only after this long. */
  readonly unresolvedRollbackAfterMs: number;
  readonly recoveryScanBlocks: number;
  readonly lockTtlMs: number;
  /**
   * Call the wallet only once the batch's `sending` state is durable (replicas or the AOF); false
   * is the operator's explicit choice to pay on a Redis that may lose the last writes.
   */
  readonly requireDurableWrites: boolean;
  /** The pause after a refusal that repeats (see SendOutcome.repeats). */
  readonly refusalBackoff: BackoffPolicy;
}

export interface PayoutRunnerModules {
  readonly journal: PayoutJournal;
  readonly balances: PayableBalances;
  readonly watch: PayoutWatch;
  readonly durability: DurabilityBarrier;
  readonly wallet: PayoutWallet;
  /**
   * When given, the wallet's knownBlockCount is also checked against the daemon's height, and no
   * batch is sent while the daemon is behind its peers (walletd would refuse it with 41); and a
   * sent batch not mined UNMINED_AFTER_MS after its send is asked about and told once
   * (unmined-notice.ts: the summary's `unmined`).
   */
  readonly daemon?: Pick<DaemonClient, 'getInfo'> & SightingDaemon;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Leader fencing: the token this process holds, or null when it may not write. */
  readonly fencingToken?: () => string | null;
  /** Per-miner payout thresholds (atomic), when miners can set one. */
  readonly thresholdOf?: (address: string) => Promise<bigint | undefined>;
  /** Told when the wallet refused a send for a reason that repeats (its outputs need upkeep). */
  readonly onRepeatingRefusal?: (reason: string) => void;
  /** Told after each step of a batch, once it is written (fault tests crash the process there). */
  /** Crash and stall points for recovery tests (the steps of one batch); none in production. */
  readonly faults?: FaultPoints<PayoutStep>;
}

class WalletUnhealthy extends Error {}

/**
 * Pays balances through walletd, exactly once per batch whatever fails or crashes, and never
 * twice even when Redis loses its latest writes. Each pass, under the payout lock:
 * 1. What the wallet shows is taken in (payout-recovery.ts): open batches settled, sent batches
 *    watched, tagged transactions Redis has no batch for recorded as unknown payments (their
 *    recipients are held until the operator resolves them: `fuego-pool payout resolve`).
 * 2. No new batch unless Redis can make a batch durable (replicas or an fsynced AOF; see
 *    DurabilityBarrier), the wallet is not in a refusal backoff, and it is synced and funded.
 * 3. The plan (pass-plan.ts), then each batch (batch-sender.ts): intent, `sending`, made durable,
 *    sendTransaction with the pool and batch id in `extra`, then the result.
 * 4. Every miner due but not paid is held with its reason, logged when that changes.
 * Every write re-checks the payout lock and the leader's fencing token inside its script.
 */
export class PayoutRunner {
  readonly #opts: PayoutRunnerOptions;
  readonly #modules: PayoutRunnerModules;
  readonly #journal: PayoutJournal;
  readonly #watch: PayoutWatch;
  readonly #clock: () => number;
  readonly #logger: Logger;
  readonly #recovery: PayoutRecovery;
  readonly #sender: BatchSender;

  constructor(opts: PayoutRunnerOptions, modules: PayoutRunnerModules) {
    if (opts.minPayoutAtomic < 0n) throw new RangeError('minPayoutAtomic must be >= 0');
    this.#opts = opts;
    this.#modules = modules;
    this.#journal = modules.journal;
    this.#watch = modules.watch;
    this.#clock = modules.clock ?? Date.now;
    this.#logger = modules.logger;
    const shared = {
      journal: modules.journal,
      watch: modules.watch,
      wallet: modules.wallet,
      logger: modules.logger,
      clock: this.#clock,
    };
    this.#recovery = new PayoutRecovery(opts, shared);
    this.#sender = new BatchSender(opts, {
      ...shared,
      durability: modules.durability,
      recovery: this.#recovery,
      ...(modules.onRepeatingRefusal ? { onRepeatingRefusal: modules.onRepeatingRefusal } : {}),
      ...(modules.faults ? { faults: modules.faults } : {}),
    });
  }

  /** When the last payout pass finished (ms), or null before the first. */
  lastRunAtMs(): Promise<number | null> {
    return this.#journal.getLastRun();
  }

  /** One recovery + payout pass. `dryRun`: plans and reports, writes nothing, calls no send. */
  async runOnce(options: { dryRun?: boolean } = {}): Promise<PayoutRunSummary> {
    if (options.dryRun) return this.#dryRun();
    const fencingToken = this.#modules.fencingToken === undefined ? '' : this.#modules.fencingToken();
    if (fencingToken === null) return emptySummary('not-leader', 'this process is not the leader');
    const writer: PayoutWriter = { fencingToken, lockToken: randomUUID() };
    if (!(await this.#journal.acquireLock(writer.lockToken, this.#opts.lockTtlMs))) {
      return emptySummary('locked', 'another payout run holds the payout lock');
    }
    try {
      return await this.#runLocked(writer);
    } finally {
      await this.#journal.releaseLock(writer.lockToken).catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'payout lock not released; it expires by itself');
      });
    }
  }

  async #runLocked(writer: PayoutWriter): Promise<PayoutRunSummary> {
    let view: Awaited<ReturnType<PayoutRecovery['read']>>;
    try {
      view = await this.#recovery.read();
    } catch (error) {
      const detail = `the wallet cannot be read: ${errorText(error)}`;
      this.#logger.warn({ detail }, 'no payouts this run');
      return this.#holdAll({ skipped: 'wallet-unhealthy', detail }, {});
    }
    const { recovered, stillOpen } = await this.#recovery.settleOpenBatches(writer, view);
    const watched = await this.#recovery.watchSentBatches(writer);
    recovered.push(...watched.reverted);
    const unknown = await this.#recovery.checkUnknownPayments(writer, view);
    const done = {
      recovered,
      stillOpen,
      unknownPayments: unknown.found,
      walletMissing: watched.walletMissing,
      unmined: await this.#noticeUnmined(writer, watched.sent),
    };

    // Any miner may be among those a payment with unnamed recipients paid.
    if (unknown.unnamed !== undefined) return this.#holdAll(unknownRecipientsStop(unknown.unnamed), done);
    const refusal = await this.#whyNotPay();
    if (refusal !== null) return this.#holdAll(refusal, done);
    let health: { blockCount: number; availableAtomic: bigint };
    try {
      health = await this.#walletHealth();
    } catch (error) {
      const detail = errorText(error);
      this.#logger.warn({ detail }, 'wallet not ready for payouts');
      return this.#holdAll({ skipped: 'wallet-unhealthy', detail }, done);
    }
    const changeAddress = this.#opts.walletChangeAddress ?? view.addresses[0];
    if (changeAddress === undefined) throw new Error('the wallet has no address for change');

    // Read after recovery, which may have given balances back.
    const payable = await this.#listPayable();
    const plan = await this.#plan(payable, health.availableAtomic, unknown);
    const { batches, stop } = await this.#sendAll(writer, plan, health.blockCount, changeAddress, stillOpen);
    const skippedMiners = await this.#recordHeld(notPaid(plan, batches, payable, stop));
    await this.#journal.setLastRun(this.#clock());
    return {
      ...done,
      skipped: stop?.skipped ?? null,
      detail: stop?.detail ?? '',
      batches,
      stillOpen,
      skippedMiners,
    };
  }

  /**
   * The sent batches not mined hours after their send told in this pass (none without a daemon),
   * from the sent batches and wallet-missing marks the pass's watch read and left.
   */
  async #noticeUnmined(writer: PayoutWriter, watched: WatchedSent): Promise<UnminedReport[]> {
    const daemon = this.#modules.daemon;
    if (daemon === undefined) return [];
    return noticeUnminedBatches(
      writer,
      {
        journal: this.#journal,
        daemon,
        logger: this.#logger,
        clock: this.#clock,
      },
      watched,
    );
  }

  /** A reason no new batch may be paid now: Redis cannot make it durable, or a refusal backoff. */
  async #whyNotPay(): Promise<PassStop | null> {
    const guarantee = await this.#modules.durability.describe();
    if (guarantee.kind === 'none' && this.#opts.requireDurableWrites) {
      const detail = `Redis cannot make a payout durable before the wallet pays: ${guarantee.detail}`;
      this.#logger.error({ persistence: guarantee.persistence }, detail);
      return { skipped: 'redis-not-durable', detail };
    }
    const backoff = await this.#watch.getBackoff();
    if (backoff !== null && backOffNow(backoff.untilMs, this.#clock(), this.#opts.refusalBackoff)) {
      const until = new Date(backoff.untilMs).toISOString();
      return {
        skipped: 'backoff',
        detail: `the wallet refused to build a transaction (${backoff.reason}); next try after ${until}`,
      };
    }
    return null;
  }

  /** Sends the planned batches in order until one stops the pass or leaves its outcome open. */
  async #sendAll(
    writer: PayoutWriter,
    plan: PassPlan,
    walletBlockCount: number,
    changeAddress: string,
    stillOpen: BatchReport[],
  ): Promise<{ batches: BatchReport[]; stop: PassStop | null }> {
    const batches: BatchReport[] = [];
    for (const planned of plan.batches) {
      const outcome = await this.#sender.send(writer, planned, walletBlockCount, changeAddress);
      batches.push(outcome.report);
      if (outcome.stop !== null) return { batches, stop: outcome.stop };
      // An ambiguous send stops the run: the wallet misbehaves, and its miners stay in-payout.
      if (outcome.report.state !== 'sent' && outcome.report.state !== 'failed') {
        stillOpen.push(outcome.report);
        break;
      }
    }
    return { batches, stop: null };
  }

  /** A pass that pays nothing new: every miner due held with the reason. */
  async #holdAll(stop: PassStop, done: Partial<PayoutRunSummary>): Promise<PayoutRunSummary> {
    const due = await dueOnly(await this.#listPayable(), this.#modules.thresholdOf);
    const held = await this.#recordHeld(due.map((p) => heldEntry(p, stop.detail)));
    return { ...emptySummary(stop.skipped, stop.detail), ...done, skippedMiners: held };
  }

  #listPayable(): Promise<PayableBalance[]> {
    return this.#modules.balances.listPayable(this.#opts.minPayoutAtomic, MAX_PAYABLE_PER_RUN);
  }

  #plan(
    payable: readonly PayableBalance[],
    availableAtomic: bigint,
    unknown: Pick<UnknownPaymentCheck, 'heldDestinations'>,
  ) {
    const rules: PlanOptions = {
      minPayoutAtomic: this.#opts.minPayoutAtomic,
      maxTransfersPerTransaction: this.#opts.maxTransfersPerTransaction,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      feePaidBy: this.#opts.feePaidBy,
      availableAtomic,
      maxBatches: this.#opts.maxBatchesPerRun,
    };
    return planPass(payable, rules, {
      heldDestinations: unknown.heldDestinations,
      thresholdOf: this.#modules.thresholdOf,
    });
  }

  async #walletHealth(): Promise<{ blockCount: number; availableAtomic: bigint }> {
    const status = await this.#modules.wallet.getStatus();
    if (status.blockCount === 0) throw new WalletUnhealthy('wallet has no blocks yet');
    const lag = status.knownBlockCount - status.blockCount;
    if (lag > this.#opts.maxWalletLagBlocks) {
      throw new WalletUnhealthy(`wallet is ${lag} blocks behind its daemon (still syncing)`);
    }
    if (this.#modules.daemon) {
      const info = await this.#modules.daemon.getInfo();
      const behind = info.height - status.knownBlockCount;
      if (behind > this.#opts.maxWalletLagBlocks) {
        throw new WalletUnhealthy(`wallet's daemon view is ${behind} blocks behind the pool's daemon`);
      }
      // walletd's own check (its node's knownBlockCount - localBlockCount > 2, local being the
      // top block's index): a daemon 2 or more blocks behind its peers gets every send refused.
      const behindPeers = info.last_known_block_index - (info.height - 1);
      if (behindPeers >= WALLETD_MIN_DAEMON_BLOCKS_BEHIND) {
        throw new WalletUnhealthy(
          `the daemon is not synchronized: ${behindPeers} blocks behind its peers (walletd refuses to send until it is)`,
        );
      }
    }
    const balance = await this.#modules.wallet.getBalance();
    return { blockCount: status.blockCount, availableAtomic: BigInt(balance.availableBalance) };
  }

  async #recordHeld(current: readonly HeldEntry[]): Promise<HeldPayout[]> {
    const previous = await this.#watch.listHeld();
    const held = trackHeldPayouts(previous, current, this.#clock(), this.#logger);
    await this.#watch.replaceHeld(held);
    return held;
  }

  async #dryRun(): Promise<PayoutRunSummary> {
    const open = await this.#journal.listOpenBatches();
    const stillOpen = open.map((b) => batchReport(b, b.state, b.txHash, 'open (dry run: not checked)'));
    let available: bigint;
    try {
      available = BigInt((await this.#modules.wallet.getBalance()).availableBalance);
    } catch (error) {
      return { ...emptySummary('wallet-unhealthy', errorText(error)), stillOpen };
    }
    const unresolved = (await this.#watch.listUnknownPayments()).filter((p) => p.status === 'unresolved');
    const unnamed = unresolvedUnnamedPayment(unresolved);
    if (unnamed !== undefined) {
      // Told, not recorded: a dry run writes nothing.
      const stop = unknownRecipientsStop(unnamed);
      const due = await dueOnly(await this.#listPayable(), this.#modules.thresholdOf);
      const skippedMiners = due.map((p) => heldEntry(p, stop.detail));
      return { ...emptySummary(stop.skipped, stop.detail), stillOpen, skippedMiners };
    }
    const plan = await this.#plan(await this.#listPayable(), available, {
      heldDestinations: addressesHeldByUnknownPayments(unresolved),
    });
    const batches = plan.batches.map((planned) => ({
      batchId: '(dry run)',
      state: 'planned' as const,
      recipients: planned.transfers.length,
      amountAtomic: planned.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n),
      txHash: null,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      note: planned.paymentId === '' ? '' : `payment id ${planned.paymentId.slice(0, 8)}…`,
    }));
    return { ...emptySummary(null, 'dry run'), batches, stillOpen, skippedMiners: plan.held };
  }
}

/**
 * Whether a send backoff ending at `untilMs` still holds at `nowMs`. One that ends further ahead
 * than the longest pause was set before the clock went back: it is over, or it would hold every
 * payout for as long as the clock jumped.
 */
function backOffNow(untilMs: number, nowMs: number, policy: BackoffPolicy): boolean {
  return nowMs < untilMs && untilMs - nowMs <= policy.maxDelayMs;
}

/** The miners a pass left out: the plan's, and those of batches refused, open or never reached. */
function notPaid(
  plan: PassPlan,
  batches: readonly BatchReport[],
  payable: readonly PayableBalance[],
  stop: PassStop | null,
): HeldEntry[] {
  const reports = new Map(batches.map((b) => [b.batchId, b]));
  const byAddress = new Map(payable.map((p) => [p.address, p]));
  const held = [...plan.held];
  for (const planned of plan.batches as readonly IdentifiedBatch[]) {
    const result = reports.get(planned.batchId);
    if (result?.state === 'sent') continue;
    const reason =
      result === undefined
        ? `not reached in this pass: ${stop?.detail ?? 'an earlier batch stopped the pass'}`
        : `payout batch ${result.state}: ${result.note}`;
    for (const transfer of planned.transfers) {
      const entry = byAddress.get(transfer.address);
      if (entry !== undefined) held.push(heldEntry(entry, reason));
    }
  }
  return held;
}
