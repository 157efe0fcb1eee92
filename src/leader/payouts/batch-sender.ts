import { type FaultPoints, NO_FAULTS } from '../../fault-points.js';
import type { Logger } from '../../log/logger.js';
import type { DurabilityBarrier } from '../../model/payouts/durability-barrier.js';
import { FEE_ASSUMED_RESOLUTION, type PayoutWriter } from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import type { PayoutWatch, UnknownPayment } from '../../model/payouts/payout-watch.js';
import { buildPayoutExtra } from '../../pool/payouts/batch-tag.js';
import type { FeePaidBy, PlannedBatch } from '../../pool/payouts/payout-planner.js';
import type { BatchReport, PassStop } from '../../pool/payouts/payout-reports.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import type { PayoutRecovery } from './payout-recovery.js';
import { errorText } from './payout-summary.js';
import { type BackoffPolicy, nextSendBackoff } from './send-backoff.js';
import { classifySendError, type SendOutcome } from './send-outcome.js';

/**
 * The steps of one batch, in order; fault tests kill the process after each. `sending-marked`
 * comes after the `sending` state is durable and before the wallet is called.
 */
export type PayoutStep = 'intent-written' | 'sending-marked' | 'wallet-called' | 'result-recorded';

/** A planned batch with the id it is sent under. */
export type IdentifiedBatch = PlannedBatch & { readonly batchId: string };

export interface BatchSenderOptions {
  readonly poolId: string;
  readonly networkFeeAtomic: bigint;
  readonly feePaidBy: FeePaidBy;
  readonly anonymity: number;
  readonly lockTtlMs: number;
  readonly requireDurableWrites: boolean;
  readonly refusalBackoff: BackoffPolicy;
}

export interface BatchSenderModules {
  readonly journal: PayoutJournal;
  readonly watch: PayoutWatch;
  readonly durability: DurabilityBarrier;
  readonly wallet: PayoutWallet;
  readonly recovery: PayoutRecovery;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly onRepeatingRefusal?: (reason: string) => void;
  /** Crash and stall points for recovery tests (the steps of one batch); none in production. */
  readonly faults?: FaultPoints<PayoutStep>;
}

/** What became of one batch, and whether the pass must stop paying. */
export interface BatchOutcome {
  readonly report: BatchReport;
  readonly stop: PassStop | null;
}

/**
 * Sends one batch, exactly once whatever fails: the intent (debits -> in-payout, `prepared`), then
 * `sending`, made durable in Redis, then sendTransaction with the pool and batch id in `extra`,
 * then the result. A refusal known to come before the broadcast rolls it back (and pauses new
 * batches when it will repeat); any other failure asks the wallet at once and otherwise leaves
 * the batch open, never resent. A batch Redis lost while the wallet paid it becomes an unknown
 * payment, so that its miners are held instead of paid again.
 */
export class BatchSender {
  readonly #opts: BatchSenderOptions;
  readonly #modules: BatchSenderModules;

  constructor(opts: BatchSenderOptions, modules: BatchSenderModules) {
    this.#opts = opts;
    this.#modules = modules;
  }

  async send(
    writer: PayoutWriter,
    planned: IdentifiedBatch,
    walletBlockCount: number,
    changeAddress: string,
  ): Promise<BatchOutcome> {
    const { journal, logger } = this.#modules;
    const faults: FaultPoints<PayoutStep> = this.#modules.faults ?? NO_FAULTS;
    const { batchId } = planned;
    const plannedReport = (state: BatchReport['state'], txHash: string | null, note: string) =>
      this.#report(planned, state, txHash, note);
    if (!(await journal.renewLock(writer.lockToken, this.#opts.lockTtlMs))) {
      return { report: plannedReport('planned', null, 'payout lock lost before the batch'), stop: null };
    }
    await journal.prepareBatch(writer, {
      id: batchId,
      transfers: planned.transfers,
      paymentId: planned.paymentId,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      feePaidBy: this.#opts.feePaidBy,
      walletBlockCount,
    });
    await faults.reached('intent-written', batchId);
    // If this write fails the wallet is not called: the batch stays prepared and is rolled back.
    await journal.markSending(writer, batchId);
    const notDurable = await this.#makeDurable(writer, planned);
    if (notDurable !== null) return notDurable;
    await faults.reached('sending-marked', batchId);
    logBatchSending(logger, planned);

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
      return this.#afterSendError(writer, planned, error);
    }
    await faults.reached('wallet-called', batchId);
    await this.#modules.watch.clearBackoff();

    const actualFeeAtomic = await this.#feeOf(txHash);
    const batch = await journal.getBatch(batchId);
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
    await journal.markSent(writer, batch, {
      txHash,
      actualFeeAtomic: actualFeeAtomic ?? this.#opts.networkFeeAtomic,
      // An unread fee is settled by a later pass (PayoutRecovery.watchSentBatches).
      resolution: actualFeeAtomic === null ? FEE_ASSUMED_RESOLUTION : 'wallet-reply',
    });
    await faults.reached('result-recorded', batchId);
    logger.info(
      { batchId, txHash, recipients: planned.transfers.length, amount: amountOf(planned).toString() },
      'payout batch sent',
    );
    return { report: plannedReport('sent', txHash, 'sent'), stop: null };
  }

  /** Waits until Redis made the batch durable; when it cannot, rolls it back (the wallet was never called). */
  async #makeDurable(writer: PayoutWriter, planned: IdentifiedBatch): Promise<BatchOutcome | null> {
    if (!this.#opts.requireDurableWrites) return null;
    try {
      await this.#modules.durability.ensureDurable();
      return null;
    } catch (error) {
      const detail = errorText(error);
      const batch = await this.#modules.journal.getBatch(planned.batchId);
      if (batch !== null) {
        await this.#modules.journal.rollback(writer, batch, `not handed to the wallet: ${detail}`, 'sending');
      }
      this.#modules.logger.error(
        { batchId: planned.batchId, detail },
        'payout batch not durable in Redis: rolled back before the wallet was called',
      );
      return {
        report: this.#report(planned, 'failed', null, `rolled back: ${detail}`),
        stop: { skipped: 'redis-not-durable', detail },
      };
    }
  }

  async #afterSendError(
    writer: PayoutWriter,
    planned: IdentifiedBatch,
    error: unknown,
  ): Promise<BatchOutcome> {
    const { journal, logger } = this.#modules;
    const { batchId } = planned;
    const outcome = classifySendError(error);
    logger.warn({ batchId, err: error, outcome: outcome.kind }, 'sendTransaction failed');
    await journal.noteError(writer, batchId, outcome.reason, outcome.kind);
    const batch = await journal.getBatch(batchId);
    if (batch === null) throw new Error(`payout batch ${batchId} vanished`);
    if (outcome.kind === 'not-sent') {
      await journal.rollback(writer, batch, `wallet refused: ${outcome.reason}`, 'sending');
      const report = this.#report(planned, 'failed', null, `rolled back: ${outcome.reason}`);
      if (outcome.notReady) return { report, stop: notReadyStop(outcome) };
      return { report, stop: outcome.repeats ? await this.#backOff(outcome) : null };
    }
    // Ambiguous: ask the wallet at once whether it went out (it usually did, and is in its mempool).
    try {
      const settled = await this.#modules.recovery.settleAfterAmbiguousSend(writer, batch);
      if (settled !== null)
        return { report: { ...settled, note: `${settled.note} (after: ${outcome.reason})` }, stop: null };
    } catch (scanError) {
      logger.warn({ batchId, err: scanError }, 'could not check the wallet after a failed send');
    }
    return {
      report: this.#report(planned, 'sending', null, `outcome unknown: ${outcome.reason}`),
      stop: null,
    };
  }

  /** A refusal that repeats: no new batch until the backoff ends; the wallet needs upkeep. */
  async #backOff(outcome: SendOutcome): Promise<PassStop> {
    const { watch, clock, logger } = this.#modules;
    const backoff = nextSendBackoff(
      await watch.getBackoff(),
      outcome.reason,
      clock(),
      this.#opts.refusalBackoff,
    );
    await watch.setBackoff(backoff);
    const detail = `the wallet refused to build a transaction (${outcome.reason}); next try after ${new Date(backoff.untilMs).toISOString()}`;
    logger.warn({ attempt: backoff.attempt, untilMs: backoff.untilMs, reason: outcome.reason }, detail);
    this.#modules.onRepeatingRefusal?.(outcome.reason);
    return { skipped: 'backoff', detail };
  }

  async #recordLostBatch(planned: IdentifiedBatch, txHash: string, feeAtomic: bigint | null): Promise<void> {
    const payment: UnknownPayment = {
      txHash,
      batchId: planned.batchId,
      blockIndex: null,
      paymentId: planned.paymentId,
      feeAtomic: feeAtomic ?? this.#opts.networkFeeAtomic,
      transfers: planned.transfers.map((t) => ({ address: t.destination, amountAtomic: t.amountAtomic })),
      unnamedAtomic: 0n,
      firstSeenMs: this.#modules.clock(),
      status: 'unresolved',
      resolvedAtMs: null,
      resolvedNote: null,
    };
    await this.#modules.watch.recordUnknownPayments([payment]);
    this.#modules.logger.error(
      { txHash, batchId: planned.batchId },
      'Redis lost a payout batch after the wallet paid it: recorded as an unknown payment; its recipients are held until you run `fuego-pool payout resolve`',
    );
  }

  async #feeOf(txHash: string): Promise<bigint | null> {
    try {
      return BigInt((await this.#modules.wallet.getTransaction(txHash)).fee);
    } catch (error) {
      this.#modules.logger.warn({ txHash, err: error }, 'could not read the fee of a sent transaction');
      return null;
    }
  }

  #report(
    planned: IdentifiedBatch,
    state: BatchReport['state'],
    txHash: string | null,
    note: string,
  ): BatchReport {
    return {
      batchId: planned.batchId,
      state,
      recipients: planned.transfers.length,
      amountAtomic: amountOf(planned),
      txHash,
      networkFeeAtomic: this.#opts.networkFeeAtomic,
      note,
    };
  }
}

/**
 * walletd refused because its daemon is not synchronized: every other batch of the pass would be
 * refused too (and rolled back, one failed batch each), so the pass stops here, as when the wallet
 * lags; the next one tries again.
 */
function notReadyStop(outcome: SendOutcome): PassStop {
  return {
    skipped: 'wallet-unhealthy',
    detail: `the wallet's daemon is not synchronized with its peers (${outcome.reason}); payouts wait until it is`,
  };
}

/**
 * Logged before the wallet is called, so that it survives a crash right after: should Redis lose
 * the batch and walletd rebuild its record from the chain (naming no recipients), this line is
 * where the operator finds whom it paid (`payout resolve TX --paid --recipients FILE`); the
 * transaction hash follows once the wallet answered ('payout batch sent', or the lost-batch error).
 */
function logBatchSending(logger: Logger, planned: IdentifiedBatch): void {
  logger.info(
    {
      batchId: planned.batchId,
      paymentId: planned.paymentId,
      transfers: planned.transfers.map((t) => ({
        address: t.address,
        amountAtomic: t.amountAtomic.toString(),
      })),
    },
    'payout batch sending',
  );
}

function amountOf(planned: PlannedBatch): bigint {
  return planned.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n);
}
