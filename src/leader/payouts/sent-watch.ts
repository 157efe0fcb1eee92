import type { Logger } from '../../log/logger.js';
import {
  isFeeAssumed,
  type PayoutBatch,
  type PayoutWriter,
  sentAtMs,
} from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import type { BatchReport, WalletMissingReport } from '../../pool/payouts/payout-reports.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import { UNCONFIRMED_BLOCK_INDEX, walletErrorKind } from '../../rpc/wallet-client.js';
import { walletOutcomeOf } from './batch-finder.js';
import { batchReport } from './payout-summary.js';
import type { WatchedSent } from './unmined-notice.js';

/** Sent batches whose transaction is read per run (oldest first, unreadable ones last). */
const MAX_WATCHED_PER_RUN = 200;
/**
 * Blocks deep in the wallet's chain after which a sent transaction is no longer watched (walletd's
 * spendable age). Counted from the wallet's getStatus blockCount, not the record's confirmations:
 * walletd counts those from the block count its daemon has heard of from peers, far ahead of the
 * chain while the daemon syncs.
 */
const SENT_CONFIRMED_DEPTH = 10;

/**
 * What a pass's sent watch did: the batches it reverted and those it marked wallet-missing (each
 * once, when the mark is made), and the sent batches and wallet-missing marks as it left them
 * (handed to the unmined-payout notice, which so reads neither again).
 */
export interface SentWatchResult {
  readonly reverted: BatchReport[];
  readonly walletMissing: WalletMissingReport[];
  readonly sent: WatchedSent;
}

/** What one watch pass changed, batch by batch. */
interface SentWatchPass {
  readonly reverted: BatchReport[];
  readonly walletMissing: WalletMissingReport[];
  /** The wallet-missing marks as read before the watch, and as the watch left them. */
  readonly missingSince: ReadonlyMap<string, number>;
  readonly missingAfter: Map<string, number>;
  /** Confirmed deep or reverted: no longer watched. */
  readonly settled: Set<string>;
  /** Unreadable in the wallet: moved to the back of the watch order. */
  readonly deferred: PayoutBatch[];
}

export interface SentWatchModules {
  readonly journal: PayoutJournal;
  readonly wallet: PayoutWallet;
  readonly logger: Logger;
  readonly clock: () => number;
}

/** The sent batches' watch of a payout pass (PayoutRecovery.watchSentBatches). */
export class SentWatch {
  readonly #opts: { readonly unresolvedRollbackAfterMs: number };
  readonly #modules: SentWatchModules;

  constructor(opts: { readonly unresolvedRollbackAfterMs: number }, modules: SentWatchModules) {
    this.#opts = opts;
    this.#modules = modules;
  }

  /**
   * Sent batches until their transaction is deep in the chain: walletd marks a transaction the
   * daemon dropped from its pool unmined CANCELLED (and lists it no more). Such a batch reached
   * nobody; once it has stayed dropped past unresolvedRollbackAfterMs (another node could still
   * mine it until its mempool lets it go), its debits go back to the balances. A batch whose fee
   * was assumed (unread right after the send) is settled with the fee of the first relayed record
   * read: the surplus goes back to its miners as mark_sent would have given it, once. The watch
   * ends only on a readable record (confirmed deep, or reverted), so every fee the wallet can tell
   * is settled; a dropped transaction is never settled (it is reverted, refunds and all). One the
   * wallet has no record of (29 "Object not found") is marked wallet-missing, once, and never
   * settled on that alone: the operator settles it (`fuego-pool payout resolve`) unless the wallet
   * finds it again, when the mark goes and the watch goes on as usual. Returns the batches
   * reverted and those marked wallet-missing in this run (each once, when the mark is made).
   */
  async watch(writer: PayoutWriter): Promise<SentWatchResult> {
    const { journal } = this.#modules;
    const missingSince = await journal.walletMissingSince();
    const unconfirmed = await journal.listUnconfirmedSent();
    const walletBlockCount = unconfirmed.length > 0 ? await this.#walletBlockCount() : 0;
    const pass: SentWatchPass = {
      reverted: [],
      walletMissing: [],
      missingSince,
      missingAfter: new Map(missingSince),
      settled: new Set(),
      deferred: [],
    };
    for (const batch of unconfirmed.slice(0, MAX_WATCHED_PER_RUN)) {
      if (batch.txHash !== null) await this.#watchSent(writer, batch, batch.txHash, walletBlockCount, pass);
    }
    const deferred = new Set(pass.deferred.map((b) => b.id));
    const watching = unconfirmed.filter((b) => !pass.settled.has(b.id) && !deferred.has(b.id));
    return {
      reverted: pass.reverted,
      walletMissing: pass.walletMissing,
      // As a read after the watch shows them: confirmed and reverted ones out, deferred ones last.
      sent: { unconfirmedSent: [...watching, ...pass.deferred], walletMissing: pass.missingAfter },
    };
  }

  /** One watched sent batch; what it changed is noted in `pass`. */
  async #watchSent(
    writer: PayoutWriter,
    batch: PayoutBatch,
    txHash: string,
    walletBlockCount: number,
    pass: SentWatchPass,
  ): Promise<void> {
    const { journal, wallet, logger, clock } = this.#modules;
    let record: Awaited<ReturnType<PayoutWallet['getTransaction']>>;
    try {
      record = await wallet.getTransaction(txHash);
    } catch (error) {
      // Unknown to the wallet (reset, restored from a backup?) or unreadable: nothing is decided on
      // it, and it is read again after the others, so that such batches never starve newer ones.
      await journal.deferSentWatch(batch.id, clock());
      pass.deferred.push(batch);
      if (walletErrorKind(error) === 'OBJECT_NOT_FOUND') {
        const marked = await this.#noteWalletMissing(writer, batch, txHash);
        if (marked !== null) {
          pass.walletMissing.push(marked);
          pass.missingAfter.set(batch.id, clock());
        }
        return;
      }
      logger.warn(
        { batchId: batch.id, txHash, err: error, feeAssumed: isFeeAssumed(batch) },
        isFeeAssumed(batch)
          ? 'sent payout transaction not readable in the wallet: its assumed fee is settled once it is'
          : 'sent payout transaction not readable in the wallet',
      );
      return;
    }
    if (pass.missingSince.has(batch.id) && (await journal.markWalletMissing(writer, batch.id, false))) {
      pass.missingAfter.delete(batch.id);
      logger.info(
        { batchId: batch.id, txHash },
        'a sent payout transaction the wallet had no record of is found again: watched as usual',
      );
    }
    const outcome = walletOutcomeOf(record.state);
    if (outcome === 'sent') {
      if (isFeeAssumed(batch)) await this.#settleAssumedFee(writer, batch, BigInt(record.fee));
      const deep =
        record.blockIndex !== UNCONFIRMED_BLOCK_INDEX &&
        walletBlockCount - record.blockIndex >= SENT_CONFIRMED_DEPTH;
      if (deep) {
        await journal.confirmSent(writer, batch.id, record.blockIndex);
        pass.settled.add(batch.id);
      }
      return;
    }
    if (outcome !== 'not-sent') return;
    const revertAtMs = (batch.resolvedAtMs ?? batch.updatedAtMs) + this.#opts.unresolvedRollbackAfterMs;
    if (clock() < revertAtMs) {
      logger.warn(
        { batchId: batch.id, txHash, state: record.state, revertAt: new Date(revertAtMs).toISOString() },
        'the wallet dropped a sent payout transaction unmined: its miners are credited back then unless it is mined',
      );
      return;
    }
    const reason = `the wallet dropped transaction ${txHash} unmined (state ${record.state})`;
    await journal.revertSent(writer, batch, reason);
    pass.settled.add(batch.id);
    logger.error({ batchId: batch.id, txHash }, `payout reverted: ${reason}`);
    pass.reverted.push(batchReport(batch, 'failed', null, `reverted: ${reason}`));
  }

  /** The wallet's chain height for the watch; 0 (nothing deep enough this pass) when unread. */
  async #walletBlockCount(): Promise<number> {
    try {
      return (await this.#modules.wallet.getStatus()).blockCount;
    } catch (error) {
      this.#modules.logger.warn(
        { err: error },
        'wallet status not readable: no sent payout is taken as final this pass',
      );
      return 0;
    }
  }

  /**
   * walletd answered 29 "Object not found" for a sent batch's transaction: its miners were debited
   * and it may be on chain or in the network's pool, so it is never settled on that alone. Said
   * once, when it becomes missing (the report then, null on later runs); `fuego-pool report` lists
   * it until the wallet finds it again.
   */
  async #noteWalletMissing(
    writer: PayoutWriter,
    batch: PayoutBatch,
    txHash: string,
  ): Promise<WalletMissingReport | null> {
    if (!(await this.#modules.journal.markWalletMissing(writer, batch.id, true))) return null;
    this.#modules.logger.warn(
      {
        batchId: batch.id,
        txHash: batch.txHash,
        amount: batch.totalAmountAtomic.toString(),
        feeAssumed: isFeeAssumed(batch),
      },
      'the wallet has no record of a sent payout transaction (reset, or restored from an older backup?): nothing is refunded; it confirms as usual once the wallet finds it again, otherwise see `fuego-pool report`',
    );
    return {
      batchId: batch.id,
      txHash,
      recipients: batch.transfers.length,
      amountAtomic: batch.totalAmountAtomic,
      sentAtMs: sentAtMs(batch),
    };
  }

  async #settleAssumedFee(writer: PayoutWriter, batch: PayoutBatch, actualFeeAtomic: bigint): Promise<void> {
    if (!(await this.#modules.journal.settleAssumedFee(writer, batch, actualFeeAtomic))) return;
    this.#modules.logger.info(
      {
        batchId: batch.id,
        txHash: batch.txHash,
        assumedFee: (batch.actualFeeAtomic ?? batch.networkFeeAtomic).toString(),
        actualFee: actualFeeAtomic.toString(),
      },
      'network fee of a payout batch read later: settled (any surplus refunded to its miners)',
    );
  }
}
