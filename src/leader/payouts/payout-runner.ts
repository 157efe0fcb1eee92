import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import { buildPayoutExtra } from '../../pool/payouts/batch-tag.js';
import type { PayableBalances } from '../../pool/payouts/payable-balances.js';
import type { PayoutBatch, PayoutWriter } from '../../pool/payouts/payout-batch.js';
import type { PayoutJournal } from '../../pool/payouts/payout-journal.js';
import { type FeePaidBy, type PlannedBatch, planPayouts } from '../../pool/payouts/payout-planner.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import type { DaemonClient } from '../../rpc/daemon-client.js';
import { DEFAULT_SCAN_LIMITS, scanForBatches, type TaggedTransaction } from './batch-finder.js';
import { classifySendError } from './send-outcome.js';

/** Blocks before a batch's recorded wallet height that a recovery scan also reads (wallet reorgs). */
const SCAN_MARGIN_BLOCKS = 20;
/** Miners considered per run (largest balances first). */
const MAX_PAYABLE_PER_RUN = 2_000;

export type PayoutStep = 'intent-written' | 'wallet-called' | 'result-recorded';

/** The runner's rules, mapped from `payments.payouts` in src/app (defaults live in the config schema). */
export interface PayoutRunnerOptions {
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
}

export interface PayoutRunnerModules {
  readonly journal: PayoutJournal;
  readonly balances: PayableBalances;
  readonly wallet: PayoutWallet;
  /** When given, the wallet's knownBlockCount is also checked against the daemon's height. */
  readonly daemon?: Pick<DaemonClient, 'getHeight'>;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Leader fencing: the token this process holds, or null when it may not write. */
  readonly fencingToken?: () => string | null;
  /** Per-miner payout thresholds (atomic), when miners can set one. */
  readonly thresholdOf?: (address: string) => Promise<bigint | undefined>;
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

export interface PayoutRunSummary {
  /** Why nothing was done, if so. */
  readonly skipped: 'locked' | 'not-leader' | 'wallet-unhealthy' | null;
  readonly detail: string;
  readonly recovered: readonly BatchReport[];
  readonly batches: readonly BatchReport[];
  readonly stillOpen: readonly BatchReport[];
  readonly skippedMiners: ReadonlyArray<{ readonly address: string; readonly reason: string }>;
}

class WalletUnhealthy extends Error {}

/**
 * Pays balances through walletd, exactly once per batch whatever fails or crashes when:
 * 1. recovery first: every open batch is settled from the wallet's own records, found by the batch
 *    id in the transaction extra - found: sent (fee from the record); state prepared (the wallet was
 *    never called): rolled back; state sending and a refusal known to come before broadcast: rolled
 *    back; otherwise it stays open (never resent) until found, or until it is certainly dead
 *    (unresolvedRollbackAfterMs with the wallet synced and the range since the intent read).
 * 2. wallet health: synced to the daemon, spendable balance covers each batch.
 * 3. each batch: intent written atomically (debits -> in-payout, batch 'prepared'), marked
 *    'sending', sendTransaction with the tag in extra, result written atomically.
 * Everything runs under the payout lock (one runner at a time, cron or leader), and every write
 * re-checks the lock and the leader's fencing token inside its script.
 */
export class PayoutRunner {
  readonly #opts: PayoutRunnerOptions;
  readonly #modules: PayoutRunnerModules;
  readonly #journal: PayoutJournal;
  readonly #clock: () => number;
  readonly #logger: Logger;

  constructor(opts: PayoutRunnerOptions, modules: PayoutRunnerModules) {
    if (opts.minPayoutAtomic < 0n) throw new RangeError('minPayoutAtomic must be >= 0');
    this.#opts = opts;
    this.#modules = modules;
    this.#journal = modules.journal;
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
    let recovered: BatchReport[];
    let stillOpen: BatchReport[];
    try {
      ({ recovered, stillOpen } = await this.#recover(writer));
    } catch (error) {
      // A fencing or lock refusal is not a wallet problem: this process must stop writing.
      const code = (error as { code?: unknown }).code;
      if (code === 'FENCED' || code === 'LOCK_LOST') throw error;
      this.#logger.warn({ err: error }, 'payout recovery could not read the wallet; no payouts this run');
      return { ...emptySummary('wallet-unhealthy', errorText(error)) };
    }
    let health: { blockCount: number; availableAtomic: bigint };
    try {
      health = await this.#walletHealth();
    } catch (error) {
      const detail = errorText(error);
      this.#logger.warn({ detail }, 'wallet not ready for payouts');
      return { ...emptySummary('wallet-unhealthy', detail), recovered, stillOpen };
    }
    const changeAddress = this.#opts.walletChangeAddress ?? (await this.#modules.wallet.getAddresses())[0];
    if (changeAddress === undefined) throw new Error('the wallet has no address for change');

    const plan = await this.#plan(health.availableAtomic);
    const batches: BatchReport[] = [];
    for (const planned of plan.batches) {
      const report = await this.#payBatch(writer, planned, health.blockCount, changeAddress);
      batches.push(report);
      // An ambiguous send stops the run: the wallet misbehaves, and its miners stay in-payout.
      if (report.state !== 'sent' && report.state !== 'failed') {
        stillOpen.push(report);
        break;
      }
    }
    await this.#journal.setLastRun(this.#clock());
    return { skipped: null, detail: '', recovered, batches, stillOpen, skippedMiners: plan.skipped };
  }

  // ---- recovery ---------------------------------------------------------------------------------

  async #recover(writer: PayoutWriter): Promise<{ recovered: BatchReport[]; stillOpen: BatchReport[] }> {
    const open = await this.#journal.listOpenBatches();
    const recovered: BatchReport[] = [];
    const stillOpen: BatchReport[] = [];
    if (open.length === 0) return { recovered, stillOpen };
    const status = await this.#modules.wallet.getStatus();
    const from = Math.max(0, Math.min(...open.map((b) => b.walletBlockCount)) - SCAN_MARGIN_BLOCKS);
    const scan = await scanForBatches(this.#modules.wallet, new Set(open.map((b) => b.id)), from, {
      ...DEFAULT_SCAN_LIMITS,
      maxBlocks: this.#opts.recoveryScanBlocks,
    });
    const synced = status.knownBlockCount - status.blockCount <= this.#opts.maxWalletLagBlocks;
    for (const batch of open) {
      const report = await this.#settle(writer, batch, scan.found.get(batch.id), {
        synced,
        scannedFrom: scan.scannedFromBlockIndex,
      });
      (report.state === 'sent' || report.state === 'failed' ? recovered : stillOpen).push(report);
    }
    return { recovered, stillOpen };
  }

  /** Decides one open batch from what the wallet shows. */
  async #settle(
    writer: PayoutWriter,
    batch: PayoutBatch,
    found: TaggedTransaction | undefined,
    scan: { synced: boolean; scannedFrom: number },
  ): Promise<BatchReport> {
    if (found !== undefined) {
      this.#checkTransfers(batch, found);
      await this.#journal.markSent(writer, batch, {
        txHash: found.txHash,
        actualFeeAtomic: found.feeAtomic,
        resolution: 'found-in-wallet',
      });
      this.#logger.info(
        { batchId: batch.id, txHash: found.txHash },
        'payout batch found in the wallet: sent',
      );
      return report(batch, 'sent', found.txHash, 'found in the wallet by its batch id');
    }
    if (batch.state === 'prepared') {
      // mark_sending is written before the wallet call and needs the lock we now hold.
      await this.#journal.rollback(
        writer,
        batch,
        'never handed to the wallet (interrupted before the call)',
        'prepared',
      );
      return report(batch, 'failed', null, 'rolled back: the wallet was never called');
    }
    if (batch.lastErrorKind === 'not-sent') {
      await this.#journal.rollback(writer, batch, `wallet refused: ${batch.lastError ?? ''}`, 'sending');
      return report(batch, 'failed', null, 'rolled back: the wallet refused it before broadcasting');
    }
    const since = batch.sendingAtMs ?? batch.createdAtMs;
    const waitedMs = this.#clock() - since;
    const rangeRead = scan.scannedFrom <= Math.max(0, batch.walletBlockCount - SCAN_MARGIN_BLOCKS);
    if (scan.synced && rangeRead && waitedMs >= this.#opts.unresolvedRollbackAfterMs) {
      const reason = `not in the wallet ${Math.round(waitedMs / 1000)} s after an ambiguous send`;
      await this.#journal.rollback(writer, batch, reason, 'sending');
      this.#logger.warn({ batchId: batch.id, reason }, 'payout batch rolled back');
      return report(batch, 'failed', null, `rolled back: ${reason}`);
    }
    return report(batch, batch.state, null, `outcome unknown (${batch.lastError ?? 'interrupted'}); waiting`);
  }

  #checkTransfers(batch: PayoutBatch, found: TaggedTransaction): void {
    for (const transfer of batch.transfers) {
      const match = found.transfers.some(
        (t) => t.address === transfer.destination && BigInt(t.amount) === transfer.amountAtomic,
      );
      if (!match) {
        this.#logger.error(
          { batchId: batch.id, txHash: found.txHash, address: transfer.address },
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

  async #plan(availableAtomic: bigint) {
    const payable = await this.#modules.balances.listPayable(this.#opts.minPayoutAtomic, MAX_PAYABLE_PER_RUN);
    const miners = [];
    for (const { address, balance } of payable) {
      // One open batch per miner: a miner whose last batch is unresolved waits for it.
      if (balance.inPayout !== 0n) continue;
      const thresholdAtomic = await this.#modules.thresholdOf?.(address);
      miners.push(
        thresholdAtomic === undefined
          ? { address, balanceAtomic: balance.balance }
          : { address, balanceAtomic: balance.balance, thresholdAtomic },
      );
    }
    return planPayouts(miners, {
      minPayoutAtomic: this.#opts.minPayoutAtomic,
      maxTransfersPerTransaction: this.#opts.maxTransfersPerTransaction,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      feePaidBy: this.#opts.feePaidBy,
      availableAtomic,
      maxBatches: this.#opts.maxBatchesPerRun,
    });
  }

  // ---- one batch ---------------------------------------------------------------------------------

  async #payBatch(
    writer: PayoutWriter,
    planned: PlannedBatch,
    walletBlockCount: number,
    changeAddress: string,
  ): Promise<BatchReport> {
    const batchId = randomBytes(16).toString('hex');
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
    if (!(await this.#journal.renewLock(writer.lockToken, this.#opts.lockTtlMs))) {
      return plannedReport('planned', null, 'payout lock lost before the batch');
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

    let txHash: string;
    try {
      ({ transactionHash: txHash } = await this.#modules.wallet.sendTransaction({
        transfers: planned.transfers.map((t) => ({ address: t.destination, amountAtomic: t.amountAtomic })),
        changeAddress,
        feeAtomic: this.#opts.networkFeeAtomic,
        anonymity: this.#opts.anonymity,
        extraHex: buildPayoutExtra(batchId, planned.paymentId),
      }));
    } catch (error) {
      return this.#afterSendError(writer, batchId, error, plannedReport);
    }
    await this.#modules.afterStep?.('wallet-called', batchId);

    const actualFeeAtomic = await this.#feeOf(txHash);
    const batch = await this.#journal.getBatch(batchId);
    if (batch === null) throw new Error(`payout batch ${batchId} vanished`);
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
    return plannedReport('sent', txHash, 'sent');
  }

  async #afterSendError(
    writer: PayoutWriter,
    batchId: string,
    error: unknown,
    plannedReport: (state: BatchReport['state'], txHash: string | null, note: string) => BatchReport,
  ): Promise<BatchReport> {
    const outcome = classifySendError(error);
    this.#logger.warn({ batchId, err: error, outcome: outcome.kind }, 'sendTransaction failed');
    await this.#journal.noteError(writer, batchId, outcome.reason, outcome.kind);
    const batch = await this.#journal.getBatch(batchId);
    if (batch === null) throw new Error(`payout batch ${batchId} vanished`);
    if (outcome.kind === 'not-sent') {
      await this.#journal.rollback(writer, batch, `wallet refused: ${outcome.reason}`, 'sending');
      return plannedReport('failed', null, `rolled back: ${outcome.reason}`);
    }
    // Ambiguous: ask the wallet at once whether it went out (it usually did, and is in its mempool).
    try {
      const scan = await scanForBatches(
        this.#modules.wallet,
        new Set([batchId]),
        Math.max(0, batch.walletBlockCount - SCAN_MARGIN_BLOCKS),
        { ...DEFAULT_SCAN_LIMITS, maxBlocks: this.#opts.recoveryScanBlocks },
      );
      const found = scan.found.get(batchId);
      if (found !== undefined) {
        const settled = await this.#settle(writer, batch, found, {
          synced: true,
          scannedFrom: scan.scannedFromBlockIndex,
        });
        return { ...settled, note: `sent (found after: ${outcome.reason})` };
      }
    } catch (scanError) {
      this.#logger.warn({ batchId, err: scanError }, 'could not check the wallet after a failed send');
    }
    return plannedReport('sending', null, `outcome unknown: ${outcome.reason}`);
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
    const plan = await this.#plan(available);
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
      skippedMiners: plan.skipped,
    };
  }
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

function emptySummary(skipped: PayoutRunSummary['skipped'], detail: string): PayoutRunSummary {
  return { skipped, detail, recovered: [], batches: [], stillOpen: [], skippedMiners: [] };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
