import { randomBytes, randomUUID } from 'node:crypto';
import { decodeAddress, encodeAddress } from '../../fuego/address.js';
import type { Logger } from '../../log/logger.js';
import { buildPayoutExtra } from '../../pool/payouts/batch-tag.js';
import type { DurabilityBarrier } from '../../pool/payouts/durability-barrier.js';
import type { PayableBalance, PayableBalances } from '../../pool/payouts/payable-balances.js';
import type { PayoutBatch, PayoutWriter } from '../../pool/payouts/payout-batch.js';
import type { PayoutJournal } from '../../pool/payouts/payout-journal.js';
import { type FeePaidBy, type PlannedBatch, planPayouts } from '../../pool/payouts/payout-planner.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import type { HeldPayout, PayoutWatch, UnknownPayment } from '../../pool/payouts/payout-watch.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { UNCONFIRMED_BLOCK_INDEX } from '../../rpc/wallet-client.js';
import {
  SCAN_PAGING,
  type ScanResult,
  scanTaggedTransactions,
  type TaggedTransaction,
  walletOutcomeOf,
} from './batch-finder.js';
import { type Settlement, settleOpenBatch } from './batch-settlement.js';
import { trackHeldPayouts } from './held-payouts.js';
import { type BackoffPolicy, nextSendBackoff } from './send-backoff.js';
import { classifySendError, type SendOutcome } from './send-outcome.js';
import { addressesHeldByUnknownPayments, unknownPaymentsIn } from './unknown-payments.js';

/** Blocks before a batch's recorded wallet height (or the scan cursor) that a scan also reads. */
const SCAN_MARGIN_BLOCKS = 20;
/** Miners considered per run (largest balances first). */
const MAX_PAYABLE_PER_RUN = 2_000;
/** Sent batches whose transaction is read per run (oldest first). */
const MAX_WATCHED_PER_RUN = 200;
/** Confirmations after which a sent transaction is no longer watched (walletd's spendable age). */
const SENT_CONFIRMED_DEPTH = 10;

/**
 * The steps of one batch, in order; fault tests kill the process after each. `sending-marked`
 * comes after the `sending` state is durable and before the wallet is called.
 */
export type PayoutStep = 'intent-written' | 'sending-marked' | 'wallet-called' | 'result-recorded';

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
  /** When given, the wallet's knownBlockCount is also checked against the daemon's height. */
  readonly daemon?: Pick<DaemonClient, 'getHeight'>;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Leader fencing: the token this process holds, or null when it may not write. */
  readonly fencingToken?: () => string | null;
  /** Per-miner payout thresholds (atomic), when miners can set one. */
  readonly thresholdOf?: (address: string) => Promise<bigint | undefined>;
  /** Told when the wallet refused a send for a reason that repeats (its outputs need upkeep). */
  readonly onRepeatingRefusal?: (reason: string) => void;
  /** Test seam: called after each step of a batch (fault tests kill the process here). */
  readonly afterStep?: (step: PayoutStep, batchId: string) => void | Promise<void>;
}

export interface BatchReport {
  readonly batchId: string;
  readonly state: PayoutBatch['state'] | 'planned';
  readonly recipients: number;
  readonly amountAtomic: bigint;
  readonly txHash: string | null;
  /** The network fee the batch was planned with. */
  readonly networkFeeAtomic: bigint;
  readonly note: string;
}

/** `wallet-upkeep`: the pass did not run while fusion transactions are pending (payout-pass.ts). */
export type PayoutSkipReason =
  | 'locked'
  | 'not-leader'
  | 'wallet-unhealthy'
  | 'redis-not-durable'
  | 'backoff'
  | 'wallet-upkeep';

export interface PayoutRunSummary {
  /** Why no new batch was paid, if so (recovery may still have run). */
  readonly skipped: PayoutSkipReason | null;
  readonly detail: string;
  readonly recovered: readonly BatchReport[];
  readonly batches: readonly BatchReport[];
  readonly stillOpen: readonly BatchReport[];
  /** Miners due but not paid in this pass, and why (also kept in the watch list and logged). */
  readonly skippedMiners: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
  /** Tagged wallet transactions Redis had no batch for, first seen in this pass. */
  readonly unknownPayments: readonly UnknownPayment[];
}

class WalletUnhealthy extends Error {}

/**
 * Pays balances through walletd, exactly once per batch whatever fails or crashes, and never
 * twice even when Redis loses its latest writes. Each pass, under the payout lock:
 * 1. The wallet's tagged transactions since the last pass (and since the oldest open batch) are
 *    read once. Every open batch is settled from them (batch-settlement.ts). A relayed tagged
 *    transaction whose batch Redis does not know is an unknown payment: recorded, logged, and its
 *    recipients are held until the operator resolves it (`fuego-pool payout resolve`).
 * 2. No new batch unless Redis can make the batch durable (replicas or an fsynced AOF; see
 *    DurabilityBarrier), the wallet is not in a refusal backoff, and it is synced and funded.
 * 3. Each batch: intent written (debits -> in-payout, batch `prepared`), marked `sending`, made
 *    durable, then sendTransaction with the batch id in `extra`, then the result.
 * Every miner due but not paid is held with its reason, logged when that changes.
 * Every write re-checks the payout lock and the leader's fencing token inside its script.
 */
export class PayoutRunner {
  readonly #opts: PayoutRunnerOptions;
  readonly #modules: PayoutRunnerModules;
  readonly #journal: PayoutJournal;
  readonly #watch: PayoutWatch;
  readonly #clock: () => number;
  readonly #logger: Logger;

  constructor(opts: PayoutRunnerOptions, modules: PayoutRunnerModules) {
    if (opts.minPayoutAtomic < 0n) throw new RangeError('minPayoutAtomic must be >= 0');
    this.#opts = opts;
    this.#modules = modules;
    this.#journal = modules.journal;
    this.#watch = modules.watch;
    this.#clock = modules.clock ?? Date.now;
    this.#logger = modules.logger;
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
    // Read after recovery, which may give balances back.
    const listPayable = () =>
      this.#modules.balances.listPayable(this.#opts.minPayoutAtomic, MAX_PAYABLE_PER_RUN);
    const holdAll = async (skipped: PayoutSkipReason, detail: string, partial: Partial<PayoutRunSummary>) => {
      const held = await this.#recordHeld((await listPayable()).map((p) => heldEntry(p, detail)));
      return { ...emptySummary(skipped, detail), ...partial, skippedMiners: held };
    };

    let walletView: WalletView;
    try {
      walletView = await this.#readWallet();
    } catch (error) {
      const detail = `the wallet cannot be read: ${errorText(error)}`;
      this.#logger.warn({ detail }, 'no payouts this run');
      return holdAll('wallet-unhealthy', detail, {});
    }
    const { recovered, stillOpen } = await this.#settleOpenBatches(writer, walletView);
    recovered.push(...(await this.#watchSentBatches(writer)));
    const unknown = await this.#checkUnknownPayments(writer, walletView);

    const guarantee = await this.#modules.durability.describe();
    if (guarantee.kind === 'none' && this.#opts.requireDurableWrites) {
      const detail = `Redis cannot make a payout durable before the wallet pays: ${guarantee.detail}`;
      this.#logger.error({ persistence: guarantee.persistence }, detail);
      return holdAll('redis-not-durable', detail, { recovered, stillOpen, unknownPayments: unknown.found });
    }
    const backoff = await this.#watch.getBackoff();
    if (backoff !== null && this.#clock() < backoff.untilMs) {
      const detail = `the wallet refused to build a transaction (${backoff.reason}); next try after ${new Date(backoff.untilMs).toISOString()}`;
      return holdAll('backoff', detail, { recovered, stillOpen, unknownPayments: unknown.found });
    }
    let health: { blockCount: number; availableAtomic: bigint };
    try {
      health = await this.#walletHealth();
    } catch (error) {
      const detail = errorText(error);
      this.#logger.warn({ detail }, 'wallet not ready for payouts');
      return holdAll('wallet-unhealthy', detail, { recovered, stillOpen, unknownPayments: unknown.found });
    }
    const changeAddress = this.#opts.walletChangeAddress ?? walletView.addresses[0];
    if (changeAddress === undefined) throw new Error('the wallet has no address for change');

    const payable = await listPayable();
    const plan = await this.#plan(payable, health.availableAtomic, unknown.heldDestinations);
    const batches: BatchReport[] = [];
    let stopped: { skipped: PayoutSkipReason; detail: string } | null = null;
    for (const planned of plan.batches) {
      const outcome = await this.#payBatch(writer, planned, health.blockCount, changeAddress);
      batches.push(outcome.report);
      if (outcome.stop !== null) {
        stopped = outcome.stop;
        break;
      }
      // An ambiguous send stops the run: the wallet misbehaves, and its miners stay in-payout.
      if (outcome.report.state !== 'sent' && outcome.report.state !== 'failed') {
        stillOpen.push(outcome.report);
        break;
      }
    }
    // Planned but not paid: a refused or open batch says why; one never reached, the stop.
    const reports = new Map(batches.map((b) => [b.batchId, b]));
    const byAddress = new Map(payable.map((p) => [p.address, p]));
    const notPaid = [...plan.held];
    for (const planned of plan.batches) {
      const result = reports.get(planned.batchId);
      if (result?.state === 'sent') continue;
      const reason =
        result === undefined
          ? `not reached in this pass: ${stopped?.detail ?? 'an earlier batch stopped the pass'}`
          : `payout batch ${result.state}: ${result.note}`;
      for (const transfer of planned.transfers) {
        const entry = byAddress.get(transfer.address);
        if (entry !== undefined) notPaid.push(heldEntry(entry, reason));
      }
    }
    const skippedMiners = await this.#recordHeld(notPaid);
    await this.#journal.setLastRun(this.#clock());
    return {
      skipped: stopped?.skipped ?? null,
      detail: stopped?.detail ?? '',
      recovered,
      batches,
      stillOpen,
      skippedMiners,
      unknownPayments: unknown.found,
    };
  }

  // ---- the wallet's view -------------------------------------------------------------------------

  /**
   * One read of the wallet's tagged transactions for the whole pass: from the oldest open batch's
   * wallet height and from the scan cursor (each less a margin for wallet reorgs) to the tip.
   */
  async #readWallet(): Promise<WalletView> {
    const [open, cursor, addresses, status] = await Promise.all([
      this.#journal.listOpenBatches(),
      this.#watch.getScanCursor(),
      this.#modules.wallet.getAddresses(),
      this.#modules.wallet.getStatus(),
    ]);
    const starts = open.map((b) => b.walletBlockCount);
    starts.push(cursor ?? status.blockCount - this.#opts.recoveryScanBlocks);
    const from = Math.max(0, Math.min(...starts) - SCAN_MARGIN_BLOCKS);
    const scan = await scanTaggedTransactions(this.#modules.wallet, from, {
      ...SCAN_PAGING,
      maxBlocks: this.#opts.recoveryScanBlocks,
    });
    const synced = status.knownBlockCount - status.blockCount <= this.#opts.maxWalletLagBlocks;
    return { open, scan, synced, addresses };
  }

  async #settleOpenBatches(
    writer: PayoutWriter,
    view: WalletView,
  ): Promise<{ recovered: BatchReport[]; stillOpen: BatchReport[] }> {
    const recovered: BatchReport[] = [];
    const stillOpen: BatchReport[] = [];
    for (const batch of view.open) {
      const settlement = settleOpenBatch(batch, view.scan.found.get(batch.id), {
        nowMs: this.#clock(),
        synced: view.synced,
        scannedFromBlockIndex: view.scan.scannedFromBlockIndex,
        scanMarginBlocks: SCAN_MARGIN_BLOCKS,
        unresolvedRollbackAfterMs: this.#opts.unresolvedRollbackAfterMs,
      });
      const result = await this.#applySettlement(writer, batch, settlement);
      (result.state === 'sent' || result.state === 'failed' ? recovered : stillOpen).push(result);
    }
    return { recovered, stillOpen };
  }

  async #applySettlement(
    writer: PayoutWriter,
    batch: PayoutBatch,
    settlement: Settlement,
  ): Promise<BatchReport> {
    switch (settlement.kind) {
      case 'sent': {
        const { tx } = settlement;
        this.#checkTransfers(batch, tx.txHash, tx.transfers);
        await this.#journal.markSent(writer, batch, {
          txHash: tx.txHash,
          actualFeeAtomic: tx.feeAtomic,
          resolution: 'found-in-wallet',
        });
        this.#logger.info({ batchId: batch.id, txHash: tx.txHash }, 'payout batch found in the wallet: sent');
        return report(batch, 'sent', tx.txHash, 'found in the wallet by its batch id');
      }
      case 'rollback':
        await this.#journal.rollback(writer, batch, settlement.reason, settlement.fromState);
        this.#logger.warn({ batchId: batch.id, reason: settlement.reason }, 'payout batch rolled back');
        return report(batch, 'failed', null, `rolled back: ${settlement.reason}`);
      case 'wait':
        return report(batch, batch.state, null, settlement.note);
    }
  }

  /**
   * Sent batches until their transaction is deep in the chain: walletd marks a transaction the
   * daemon dropped from its pool unmined CANCELLED (and lists it no more). Such a batch reached
   * nobody; once it has stayed dropped past unresolvedRollbackAfterMs (another node could still
   * mine it until its mempool lets it go), its debits go back to the balances.
   */
  async #watchSentBatches(writer: PayoutWriter): Promise<BatchReport[]> {
    const reverted: BatchReport[] = [];
    for (const batch of (await this.#journal.listUnconfirmedSent()).slice(0, MAX_WATCHED_PER_RUN)) {
      if (batch.txHash === null) continue;
      let record: Awaited<ReturnType<PayoutWallet['getTransaction']>>;
      try {
        record = await this.#modules.wallet.getTransaction(batch.txHash);
      } catch (error) {
        // Unknown to the wallet (restored from a backup?) or unreadable: nothing is decided on it.
        this.#logger.warn(
          { batchId: batch.id, txHash: batch.txHash, err: error },
          'sent payout transaction not readable in the wallet',
        );
        continue;
      }
      const outcome = walletOutcomeOf(record.state);
      if (outcome === 'sent') {
        if (record.blockIndex !== UNCONFIRMED_BLOCK_INDEX && record.confirmations >= SENT_CONFIRMED_DEPTH) {
          await this.#journal.confirmSent(writer, batch.id, record.blockIndex);
        }
        continue;
      }
      if (outcome !== 'not-sent') continue;
      const sentAtMs = batch.resolvedAtMs ?? batch.updatedAtMs;
      const revertAtMs = sentAtMs + this.#opts.unresolvedRollbackAfterMs;
      if (this.#clock() < revertAtMs) {
        this.#logger.warn(
          {
            batchId: batch.id,
            txHash: batch.txHash,
            state: record.state,
            revertAt: new Date(revertAtMs).toISOString(),
          },
          'the wallet dropped a sent payout transaction unmined: its miners are credited back then unless it is mined',
        );
        continue;
      }
      const reason = `the wallet dropped transaction ${batch.txHash} unmined (state ${record.state})`;
      await this.#journal.revertSent(writer, batch, reason);
      this.#logger.error({ batchId: batch.id, txHash: batch.txHash }, `payout reverted: ${reason}`);
      reverted.push(report(batch, 'failed', null, `reverted: ${reason}`));
    }
    return reverted;
  }

  /**
   * The relayed tagged transactions of the scan that are not open batches: a batch rolled back
   * that went out after all is recorded as sent (late); one Redis does not know at all is an
   * unknown payment. The scan cursor moves on only once they are recorded.
   */
  async #checkUnknownPayments(
    writer: PayoutWriter,
    view: WalletView,
  ): Promise<{ found: UnknownPayment[]; heldDestinations: Map<string, string> }> {
    const openIds = new Set(view.open.map((b) => b.id));
    // Another pool paying from the same wallet tags its batches with its own id.
    const ours = (tx: TaggedTransaction) => tx.poolId === null || tx.poolId === this.#opts.poolId;
    const others = [...view.scan.found.values()].filter(
      (tx) => ours(tx) && !openIds.has(tx.batchId) && tx.outcome === 'sent',
    );
    const known = await this.#journal.knownBatchIds(others.map((tx) => tx.batchId));
    for (const tx of others) {
      if (known.has(tx.batchId)) await this.#settleLateFound(writer, tx);
    }
    const found = unknownPaymentsIn(others, known, new Set(view.addresses), this.#clock());
    const recorded = await this.#watch.recordUnknownPayments(found);
    for (const payment of recorded) {
      this.#logger.error(
        {
          txHash: payment.txHash,
          batchId: payment.batchId,
          recipients: payment.transfers.map((t) => t.address),
          amount: payment.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n).toString(),
        },
        'the wallet paid a tagged transaction Redis has no batch for (Redis lost writes?): its recipients are held until you run `fuego-pool payout resolve`',
      );
    }
    await this.#watch.setScanCursor(view.scan.scannedToBlockIndex);
    const unresolved = (await this.#watch.listUnknownPayments()).filter((p) => p.status === 'unresolved');
    return { found: recorded, heldDestinations: addressesHeldByUnknownPayments(unresolved) };
  }

  /** A batch rolled back as dead that the wallet relayed after all: recorded as sent (late). */
  async #settleLateFound(writer: PayoutWriter, tx: TaggedTransaction): Promise<void> {
    const batch = await this.#journal.getBatch(tx.batchId);
    if (batch?.state !== 'failed') return;
    await this.#journal.markSent(writer, batch, {
      txHash: tx.txHash,
      actualFeeAtomic: tx.feeAtomic,
      resolution: 'found-in-wallet after rollback',
    });
    this.#logger.error(
      { batchId: batch.id, txHash: tx.txHash },
      'a payout batch rolled back as dead was relayed after all: its miners are debited again (their balances may go below zero until later credits)',
    );
  }

  #checkTransfers(
    batch: PayoutBatch,
    txHash: string,
    transfers: ReadonlyArray<{ address: string; amount: number }>,
  ): void {
    for (const transfer of batch.transfers) {
      const match = transfers.some(
        (t) => t.address === transfer.destination && BigInt(t.amount) === transfer.amountAtomic,
      );
      if (!match) {
        this.#logger.error(
          { batchId: batch.id, txHash, address: transfer.address },
          'wallet transaction of a batch lacks an expected transfer (recorded as sent anyway: the money left)',
        );
      }
    }
  }

  // ---- health and planning -----------------------------------------------------------------------

  async #walletHealth(): Promise<{ blockCount: number; availableAtomic: bigint }> {
    const status = await this.#modules.wallet.getStatus();
    if (status.blockCount === 0) throw new WalletUnhealthy('wallet has no blocks yet');
    const lag = status.knownBlockCount - status.blockCount;
    if (lag > this.#opts.maxWalletLagBlocks) {
      throw new WalletUnhealthy(`wallet is ${lag} blocks behind its daemon (still syncing)`);
    }
    if (this.#modules.daemon) {
      const daemonHeight = await this.#modules.daemon.getHeight();
      const behind = daemonHeight - status.knownBlockCount;
      if (behind > this.#opts.maxWalletLagBlocks) {
        throw new WalletUnhealthy(`wallet's daemon view is ${behind} blocks behind the pool's daemon`);
      }
    }
    const balance = await this.#modules.wallet.getBalance();
    return { blockCount: status.blockCount, availableAtomic: BigInt(balance.availableBalance) };
  }

  /**
   * The batches of this pass, and every payable miner left out with the reason: an unresolved
   * earlier batch, an unknown payment to its address, its own threshold, or the planner's reasons.
   */
  async #plan(
    payable: readonly PayableBalance[],
    availableAtomic: bigint,
    heldDestinations: ReadonlyMap<string, string>,
  ): Promise<{
    batches: Array<PlannedBatch & { readonly batchId: string }>;
    held: Array<Omit<HeldPayout, 'sinceMs'>>;
  }> {
    const held: Array<Omit<HeldPayout, 'sinceMs'>> = [];
    const miners = [];
    for (const entry of payable) {
      const { address, balance } = entry;
      // One open batch per miner: a miner whose last batch is unresolved waits for it.
      if (balance.inPayout !== 0n) {
        held.push(heldEntry(entry, 'an earlier payout batch of this miner is not settled yet'));
        continue;
      }
      const unknownTx = heldDestinations.get(destinationOf(address));
      if (unknownTx !== undefined) {
        held.push(
          heldEntry(
            entry,
            `the wallet paid this address in ${unknownTx}, a transaction Redis has no batch for: resolve it first`,
          ),
        );
        continue;
      }
      const thresholdAtomic = await this.#modules.thresholdOf?.(address);
      if (thresholdAtomic !== undefined && balance.balance < thresholdAtomic) continue;
      miners.push(
        thresholdAtomic === undefined
          ? { address, balanceAtomic: balance.balance }
          : { address, balanceAtomic: balance.balance, thresholdAtomic },
      );
    }
    const plan = planPayouts(miners, {
      minPayoutAtomic: this.#opts.minPayoutAtomic,
      maxTransfersPerTransaction: this.#opts.maxTransfersPerTransaction,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      feePaidBy: this.#opts.feePaidBy,
      availableAtomic,
      maxBatches: this.#opts.maxBatchesPerRun,
    });
    const balanceOf = new Map(payable.map((p) => [p.address, p]));
    for (const skipped of plan.skipped) {
      const entry = balanceOf.get(skipped.address);
      if (entry !== undefined) held.push(heldEntry(entry, skipped.reason));
    }
    const batches = plan.batches.map((planned) => ({ ...planned, batchId: randomBytes(16).toString('hex') }));
    return { batches, held };
  }

  async #recordHeld(current: ReadonlyArray<Omit<HeldPayout, 'sinceMs'>>): Promise<HeldPayout[]> {
    const previous = await this.#watch.listHeld();
    const held = trackHeldPayouts(previous, current, this.#clock(), this.#logger);
    await this.#watch.replaceHeld(held);
    return held;
  }

  // ---- one batch ---------------------------------------------------------------------------------

  async #payBatch(
    writer: PayoutWriter,
    planned: PlannedBatch & { readonly batchId: string },
    walletBlockCount: number,
    changeAddress: string,
  ): Promise<{ report: BatchReport; stop: { skipped: PayoutSkipReason; detail: string } | null }> {
    const { batchId } = planned;
    const amountAtomic = planned.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n);
    const plannedReport = (
      state: BatchReport['state'],
      txHash: string | null,
      note: string,
    ): BatchReport => ({
      batchId,
      state,
      recipients: planned.transfers.length,
      amountAtomic,
      txHash,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      note,
    });
    const go = (report: BatchReport) => ({ report, stop: null });
    if (!(await this.#journal.renewLock(writer.lockToken, this.#opts.lockTtlMs))) {
      return go(plannedReport('planned', null, 'payout lock lost before the batch'));
    }
    await this.#journal.prepareBatch(writer, {
      id: batchId,
      transfers: planned.transfers,
      paymentId: planned.paymentId,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      feePaidBy: this.#opts.feePaidBy,
      walletBlockCount,
    });
    await this.#modules.afterStep?.('intent-written', batchId);
    // If this write fails the wallet is not called: the batch stays prepared and is rolled back.
    await this.#journal.markSending(writer, batchId);
    if (this.#opts.requireDurableWrites) {
      try {
        await this.#modules.durability.ensureDurable();
      } catch (error) {
        const detail = errorText(error);
        const batch = await this.#journal.getBatch(batchId);
        if (batch !== null)
          await this.#journal.rollback(writer, batch, `not handed to the wallet: ${detail}`, 'sending');
        this.#logger.error(
          { batchId, detail },
          'payout batch not durable in Redis: rolled back before the wallet was called',
        );
        return {
          report: plannedReport('failed', null, `rolled back: ${detail}`),
          stop: { skipped: 'redis-not-durable', detail },
        };
      }
    }
    await this.#modules.afterStep?.('sending-marked', batchId);

    let txHash: string;
    try {
      ({ transactionHash: txHash } = await this.#modules.wallet.sendTransaction({
        transfers: planned.transfers.map((t) => ({ address: t.destination, amountAtomic: t.amountAtomic })),
        changeAddress,
        feeAtomic: this.#opts.networkFeeAtomic,
        anonymity: this.#opts.anonymity,
        extraHex: buildPayoutExtra(batchId, planned.paymentId, this.#opts.poolId),
      }));
    } catch (error) {
      return this.#afterSendError(writer, batchId, error, plannedReport);
    }
    await this.#modules.afterStep?.('wallet-called', batchId);
    await this.#watch.clearBackoff();

    const actualFeeAtomic = await this.#feeOf(txHash);
    const batch = await this.#journal.getBatch(batchId);
    if (batch === null) {
      // Redis lost the batch while the wallet paid it: the money left, no record of it remains.
      await this.#recordLostBatch(planned, txHash, actualFeeAtomic);
      return {
        report: plannedReport('sent', txHash, 'sent, but Redis lost its batch: held as an unknown payment'),
        stop: {
          skipped: 'redis-not-durable',
          detail: `Redis lost payout batch ${batchId} after the wallet paid it`,
        },
      };
    }
    await this.#journal.markSent(writer, batch, {
      txHash,
      actualFeeAtomic: actualFeeAtomic ?? this.#opts.networkFeeAtomic,
      resolution: actualFeeAtomic === null ? 'wallet-reply (fee assumed)' : 'wallet-reply',
    });
    await this.#modules.afterStep?.('result-recorded', batchId);
    this.#logger.info(
      { batchId, txHash, recipients: planned.transfers.length, amount: amountAtomic.toString() },
      'payout batch sent',
    );
    return go(plannedReport('sent', txHash, 'sent'));
  }

  async #recordLostBatch(
    planned: PlannedBatch & { batchId: string },
    txHash: string,
    feeAtomic: bigint | null,
  ) {
    const payment: UnknownPayment = {
      txHash,
      batchId: planned.batchId,
      blockIndex: null,
      paymentId: planned.paymentId,
      feeAtomic: feeAtomic ?? this.#opts.networkFeeAtomic,
      transfers: planned.transfers.map((t) => ({ address: t.destination, amountAtomic: t.amountAtomic })),
      firstSeenMs: this.#clock(),
      status: 'unresolved',
      resolvedAtMs: null,
      resolvedNote: null,
    };
    await this.#watch.recordUnknownPayments([payment]);
    this.#logger.error(
      { txHash, batchId: planned.batchId },
      'Redis lost a payout batch after the wallet paid it: recorded as an unknown payment; its recipients are held until you run `fuego-pool payout resolve`',
    );
  }

  async #afterSendError(
    writer: PayoutWriter,
    batchId: string,
    error: unknown,
    plannedReport: (state: BatchReport['state'], txHash: string | null, note: string) => BatchReport,
  ): Promise<{ report: BatchReport; stop: { skipped: PayoutSkipReason; detail: string } | null }> {
    const outcome = classifySendError(error);
    this.#logger.warn({ batchId, err: error, outcome: outcome.kind }, 'sendTransaction failed');
    await this.#journal.noteError(writer, batchId, outcome.reason, outcome.kind);
    const batch = await this.#journal.getBatch(batchId);
    if (batch === null) throw new Error(`payout batch ${batchId} vanished`);
    if (outcome.kind === 'not-sent') {
      await this.#journal.rollback(writer, batch, `wallet refused: ${outcome.reason}`, 'sending');
      const report = plannedReport('failed', null, `rolled back: ${outcome.reason}`);
      return { report, stop: outcome.repeats ? await this.#backOff(outcome) : null };
    }
    // Ambiguous: ask the wallet at once whether it went out (it usually did, and is in its mempool).
    try {
      const scan = await scanTaggedTransactions(
        this.#modules.wallet,
        Math.max(0, batch.walletBlockCount - SCAN_MARGIN_BLOCKS),
        { ...SCAN_PAGING, maxBlocks: this.#opts.recoveryScanBlocks },
      );
      const found = scan.found.get(batchId);
      if (found !== undefined) {
        const settlement = settleOpenBatch(batch, found, {
          nowMs: this.#clock(),
          synced: true,
          scannedFromBlockIndex: scan.scannedFromBlockIndex,
          scanMarginBlocks: SCAN_MARGIN_BLOCKS,
          unresolvedRollbackAfterMs: this.#opts.unresolvedRollbackAfterMs,
        });
        const settled = await this.#applySettlement(writer, batch, settlement);
        return { report: { ...settled, note: `${settled.note} (after: ${outcome.reason})` }, stop: null };
      }
    } catch (scanError) {
      this.#logger.warn({ batchId, err: scanError }, 'could not check the wallet after a failed send');
    }
    return { report: plannedReport('sending', null, `outcome unknown: ${outcome.reason}`), stop: null };
  }

  /** A refusal that repeats: no new batch until the backoff ends; the wallet needs upkeep. */
  async #backOff(outcome: SendOutcome): Promise<{ skipped: PayoutSkipReason; detail: string }> {
    const previous = await this.#watch.getBackoff();
    const backoff = nextSendBackoff(previous, outcome.reason, this.#clock(), this.#opts.refusalBackoff);
    await this.#watch.setBackoff(backoff);
    const detail = `the wallet refused to build a transaction (${outcome.reason}); next try after ${new Date(backoff.untilMs).toISOString()}`;
    this.#logger.warn({ attempt: backoff.attempt, untilMs: backoff.untilMs, reason: outcome.reason }, detail);
    this.#modules.onRepeatingRefusal?.(outcome.reason);
    return { skipped: 'backoff', detail };
  }

  async #feeOf(txHash: string): Promise<bigint | null> {
    try {
      return BigInt((await this.#modules.wallet.getTransaction(txHash)).fee);
    } catch (error) {
      this.#logger.warn({ txHash, err: error }, 'could not read the fee of a sent transaction');
      return null;
    }
  }

  // ---- dry run -----------------------------------------------------------------------------------

  async #dryRun(): Promise<PayoutRunSummary> {
    const open = await this.#journal.listOpenBatches();
    const stillOpen = open.map((b) => report(b, b.state, b.txHash, 'open (dry run: not checked)'));
    let available: bigint;
    try {
      available = BigInt((await this.#modules.wallet.getBalance()).availableBalance);
    } catch (error) {
      return { ...emptySummary('wallet-unhealthy', errorText(error)), stillOpen };
    }
    const payable = await this.#modules.balances.listPayable(this.#opts.minPayoutAtomic, MAX_PAYABLE_PER_RUN);
    const unresolved = (await this.#watch.listUnknownPayments()).filter((p) => p.status === 'unresolved');
    const plan = await this.#plan(payable, available, addressesHeldByUnknownPayments(unresolved));
    const batches = plan.batches.map((planned) => ({
      batchId: '(dry run)',
      state: 'planned' as const,
      recipients: planned.transfers.length,
      amountAtomic: planned.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n),
      txHash: null,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      note: planned.paymentId === '' ? '' : `payment id ${planned.paymentId.slice(0, 8)}…`,
    }));
    return {
      skipped: null,
      detail: 'dry run',
      recovered: [],
      batches,
      stillOpen,
      skippedMiners: plan.held,
      unknownPayments: [],
    };
  }
}

interface WalletView {
  readonly open: PayoutBatch[];
  readonly scan: ScanResult;
  readonly synced: boolean;
  readonly addresses: string[];
}

/** The address the wallet pays for a miner account (an integrated address pays its standard one). */
function destinationOf(address: string): string {
  try {
    const decoded = decodeAddress(address);
    return decoded.type === 'integrated' ? encodeAddress(decoded) : address;
  } catch {
    return address;
  }
}

function heldEntry(entry: PayableBalance, reason: string): Omit<HeldPayout, 'sinceMs'> {
  return { address: entry.address, amountAtomic: entry.balance.balance, reason };
}

function report(
  batch: PayoutBatch,
  state: BatchReport['state'],
  txHash: string | null,
  note: string,
): BatchReport {
  return {
    batchId: batch.id,
    state,
    recipients: batch.transfers.length,
    amountAtomic: batch.totalAmountAtomic,
    txHash,
    networkFeeAtomic: batch.networkFeeAtomic,
    note,
  };
}

function emptySummary(skipped: PayoutSkipReason | null, detail: string): PayoutRunSummary {
  return {
    skipped,
    detail,
    recovered: [],
    batches: [],
    stillOpen: [],
    skippedMiners: [],
    unknownPayments: [],
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
