import type { Logger } from '../../log/logger.js';
import {
  isFeeAssumed,
  type PayoutBatch,
  type PayoutWriter,
  sentAtMs,
} from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import {
  type PayoutWatch,
  type UnknownPayment,
  unknownPaymentAmount,
  unresolvedUnnamedPayment,
} from '../../model/payouts/payout-watch.js';
import type { BatchReport, WalletMissingReport } from '../../pool/payouts/payout-reports.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import { UNCONFIRMED_BLOCK_INDEX, walletErrorKind } from '../../rpc/wallet-client.js';
import {
  SCAN_PAGING,
  type ScanResult,
  scanTaggedTransactions,
  type TaggedTransaction,
  walletOutcomeOf,
} from './batch-finder.js';
import { type Settlement, settleOpenBatch } from './batch-settlement.js';
import { checkBatchTransfers, type RecordTransfers } from './batch-transfers.js';
import { batchReport } from './payout-summary.js';
import { addressesHeldByUnknownPayments, unknownPaymentsIn } from './unknown-payments.js';

const UNNAMED_PAYMENT_MESSAGE =
  'the wallet paid a tagged transaction Redis has no batch for (Redis lost writes?) to recipients it cannot name (walletd rebuilt its record from the chain after a reset): no miner is paid until you resolve it: take whom it paid from this log (the info line "payout batch sending" of its batchId) and run `fuego-pool payout resolve TXHASH --paid --recipients FILE` (see `fuego-pool report`)';

/** Blocks before a batch's recorded wallet height (or the scan cursor) that a scan also reads. */
const SCAN_MARGIN_BLOCKS = 20;
/** Sent batches whose transaction is read per run (oldest first, unreadable ones last). */
const MAX_WATCHED_PER_RUN = 200;
/**
 * Blocks deep in the wallet's chain after which a sent transaction is no longer watched (walletd's
 * spendable age). Counted from the wallet's getStatus blockCount, not the record's confirmations:
 * walletd counts those from the block count its daemon has heard of from peers, far ahead of the
 * chain while the daemon syncs.
 */
const SENT_CONFIRMED_DEPTH = 10;

export interface PayoutRecoveryOptions {
  /** This pool's id in its batch tags: another pool's batches on the same wallet are not ours. */
  readonly poolId: string;
  readonly maxWalletLagBlocks: number;
  readonly unresolvedRollbackAfterMs: number;
  readonly recoveryScanBlocks: number;
}

export interface PayoutRecoveryModules {
  readonly journal: PayoutJournal;
  readonly watch: PayoutWatch;
  readonly wallet: PayoutWallet;
  readonly logger: Logger;
  readonly clock: () => number;
}

/** What one read of the wallet showed: the open batches, the tagged transactions, its addresses. */
export interface WalletView {
  readonly open: readonly PayoutBatch[];
  readonly scan: ScanResult;
  readonly synced: boolean;
  readonly addresses: readonly string[];
}

/** The unknown payments of a pass: those first seen now, and the addresses all unresolved ones hold. */
export interface UnknownPaymentCheck {
  readonly found: UnknownPayment[];
  readonly heldDestinations: Map<string, string>;
  /** An unresolved one whose recipients cannot be known: it holds every miner. */
  readonly unnamed: UnknownPayment | undefined;
}

/**
 * Everything a payout pass learns from the wallet before it pays anything new, in this order:
 * 1. one read of the wallet's tagged transactions since the last pass and since the oldest open
 *    batch (`read`);
 * 2. each open batch settled by what the wallet shows (`settleOpenBatches`, batch-settlement.ts);
 * 3. sent batches watched until their transaction is deep in the chain, and the fee of one sent
 *    while the wallet could not tell it settled (`watchSentBatches`);
 * 4. tagged transactions Redis has no batch for recorded as unknown payments, and a rolled-back
 *    batch found relayed after all recorded as sent late (`checkUnknownPayments`).
 */
export class PayoutRecovery {
  readonly #opts: PayoutRecoveryOptions;
  readonly #modules: PayoutRecoveryModules;

  constructor(opts: PayoutRecoveryOptions, modules: PayoutRecoveryModules) {
    this.#opts = opts;
    this.#modules = modules;
  }

  /**
   * One read of the wallet's tagged transactions for the whole pass: from the oldest open batch's
   * wallet height and from the scan cursor (each less a margin for wallet reorgs) to the tip.
   */
  async read(): Promise<WalletView> {
    const { journal, watch, wallet } = this.#modules;
    const [open, cursor, addresses, status] = await Promise.all([
      journal.listOpenBatches(),
      watch.getScanCursor(),
      wallet.getAddresses(),
      wallet.getStatus(),
    ]);
    const starts = open.map((b) => b.walletBlockCount);
    starts.push(cursor ?? status.blockCount - this.#opts.recoveryScanBlocks);
    const scan = await this.#scan(Math.min(...starts));
    const synced = status.knownBlockCount - status.blockCount <= this.#opts.maxWalletLagBlocks;
    return { open, scan, synced, addresses };
  }

  async settleOpenBatches(
    writer: PayoutWriter,
    view: WalletView,
  ): Promise<{ recovered: BatchReport[]; stillOpen: BatchReport[] }> {
    const recovered: BatchReport[] = [];
    const stillOpen: BatchReport[] = [];
    for (const batch of view.open) {
      const settlement = settleOpenBatch(batch, view.scan.found.get(batch.id), this.#settlementContext(view));
      const result = await this.#apply(writer, batch, settlement);
      (result.state === 'sent' || result.state === 'failed' ? recovered : stillOpen).push(result);
    }
    return { recovered, stillOpen };
  }

  /**
   * A batch whose send just failed in a way that says nothing about the money: the wallet is asked
   * at once (it usually did send, and has it in its mempool). Null when it shows nothing yet.
   */
  async settleAfterAmbiguousSend(writer: PayoutWriter, batch: PayoutBatch): Promise<BatchReport | null> {
    const scan = await this.#scan(batch.walletBlockCount);
    const found = scan.found.get(batch.id);
    if (found === undefined) return null;
    const settlement = settleOpenBatch(batch, found, this.#settlementContext({ scan, synced: true }));
    return this.#apply(writer, batch, settlement);
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
  async watchSentBatches(
    writer: PayoutWriter,
  ): Promise<{ reverted: BatchReport[]; walletMissing: WalletMissingReport[] }> {
    const { journal, wallet, logger, clock } = this.#modules;
    const reverted: BatchReport[] = [];
    const walletMissing: WalletMissingReport[] = [];
    const missingSince = await journal.walletMissingSince();
    const watched = (await journal.listUnconfirmedSent()).slice(0, MAX_WATCHED_PER_RUN);
    const walletBlockCount = watched.length > 0 ? await this.#walletBlockCount() : 0;
    for (const batch of watched) {
      if (batch.txHash === null) continue;
      let record: Awaited<ReturnType<PayoutWallet['getTransaction']>>;
      try {
        record = await wallet.getTransaction(batch.txHash);
      } catch (error) {
        // Unknown to the wallet (reset, restored from a backup?) or unreadable: nothing is decided on
        // it, and it is read again after the others, so that such batches never starve newer ones.
        await journal.deferSentWatch(batch.id, clock());
        if (walletErrorKind(error) === 'OBJECT_NOT_FOUND') {
          const marked = await this.#noteWalletMissing(writer, batch, batch.txHash);
          if (marked !== null) walletMissing.push(marked);
          continue;
        }
        logger.warn(
          { batchId: batch.id, txHash: batch.txHash, err: error, feeAssumed: isFeeAssumed(batch) },
          isFeeAssumed(batch)
            ? 'sent payout transaction not readable in the wallet: its assumed fee is settled once it is'
            : 'sent payout transaction not readable in the wallet',
        );
        continue;
      }
      if (missingSince.has(batch.id) && (await journal.markWalletMissing(writer, batch.id, false))) {
        logger.info(
          { batchId: batch.id, txHash: batch.txHash },
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
        }
        continue;
      }
      if (outcome !== 'not-sent') continue;
      const revertAtMs = (batch.resolvedAtMs ?? batch.updatedAtMs) + this.#opts.unresolvedRollbackAfterMs;
      if (clock() < revertAtMs) {
        logger.warn(
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
      await journal.revertSent(writer, batch, reason);
      logger.error({ batchId: batch.id, txHash: batch.txHash }, `payout reverted: ${reason}`);
      reverted.push(batchReport(batch, 'failed', null, `reverted: ${reason}`));
    }
    return { reverted, walletMissing };
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

  /**
   * The relayed tagged transactions of the scan that are not open batches: a batch rolled back
   * that went out after all is recorded as sent (late); one Redis does not know at all is an
   * unknown payment. The scan cursor moves on only once they are recorded.
   */
  async checkUnknownPayments(writer: PayoutWriter, view: WalletView): Promise<UnknownPaymentCheck> {
    const { journal, watch, logger, clock } = this.#modules;
    const openIds = new Set(view.open.map((b) => b.id));
    // Another pool paying from the same wallet tags its batches with its own id.
    const ours = (tx: TaggedTransaction) => tx.poolId === null || tx.poolId === this.#opts.poolId;
    const others = [...view.scan.found.values()].filter(
      (tx) => ours(tx) && !openIds.has(tx.batchId) && tx.outcome === 'sent',
    );
    const known = await journal.knownBatchIds(others.map((tx) => tx.batchId));
    for (const tx of others) {
      if (known.has(tx.batchId)) await this.#settleLateFound(writer, tx);
    }
    const recorded = await watch.recordUnknownPayments(
      unknownPaymentsIn(others, known, new Set(view.addresses), clock()),
    );
    for (const payment of recorded) {
      logger.error(
        {
          txHash: payment.txHash,
          batchId: payment.batchId,
          recipients: payment.transfers.map((t) => t.address),
          amount: unknownPaymentAmount(payment).toString(),
        },
        payment.unnamedAtomic > 0n
          ? UNNAMED_PAYMENT_MESSAGE
          : 'the wallet paid a tagged transaction Redis has no batch for (Redis lost writes?): its recipients are held until you run `fuego-pool payout resolve`',
      );
    }
    await watch.setScanCursor(view.scan.scannedToBlockIndex);
    const unresolved = (await watch.listUnknownPayments()).filter((p) => p.status === 'unresolved');
    return {
      found: recorded,
      heldDestinations: addressesHeldByUnknownPayments(unresolved),
      unnamed: unresolvedUnnamedPayment(unresolved),
    };
  }

  #scan(fromBlockCount: number): Promise<ScanResult> {
    return scanTaggedTransactions(this.#modules.wallet, Math.max(0, fromBlockCount - SCAN_MARGIN_BLOCKS), {
      ...SCAN_PAGING,
      maxBlocks: this.#opts.recoveryScanBlocks,
    });
  }

  #settlementContext(view: Pick<WalletView, 'scan' | 'synced'>) {
    return {
      nowMs: this.#modules.clock(),
      synced: view.synced,
      scannedFromBlockIndex: view.scan.scannedFromBlockIndex,
      scanMarginBlocks: SCAN_MARGIN_BLOCKS,
      unresolvedRollbackAfterMs: this.#opts.unresolvedRollbackAfterMs,
    };
  }

  async #apply(writer: PayoutWriter, batch: PayoutBatch, settlement: Settlement): Promise<BatchReport> {
    const { journal, logger } = this.#modules;
    switch (settlement.kind) {
      case 'sent': {
        const { tx } = settlement;
        this.#checkTransfers(batch, tx.txHash, tx.transfers);
        await journal.markSent(writer, batch, {
          txHash: tx.txHash,
          actualFeeAtomic: tx.feeAtomic,
          resolution: 'found-in-wallet',
        });
        logger.info({ batchId: batch.id, txHash: tx.txHash }, 'payout batch found in the wallet: sent');
        return batchReport(batch, 'sent', tx.txHash, 'found in the wallet by its batch id');
      }
      case 'rollback':
        await journal.rollback(writer, batch, settlement.reason, settlement.fromState);
        logger.warn({ batchId: batch.id, reason: settlement.reason }, 'payout batch rolled back');
        return batchReport(batch, 'failed', null, `rolled back: ${settlement.reason}`);
      case 'wait':
        return batchReport(batch, batch.state, null, settlement.note);
    }
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

  /** A batch rolled back as dead that the wallet relayed after all: recorded as sent (late). */
  async #settleLateFound(writer: PayoutWriter, tx: TaggedTransaction): Promise<void> {
    const batch = await this.#modules.journal.getBatch(tx.batchId);
    if (batch?.state !== 'failed') return;
    await this.#modules.journal.markSent(writer, batch, {
      txHash: tx.txHash,
      actualFeeAtomic: tx.feeAtomic,
      resolution: 'found-in-wallet after rollback',
    });
    this.#modules.logger.error(
      { batchId: batch.id, txHash: tx.txHash },
      'a payout batch rolled back as dead was relayed after all: its miners are debited again (their balances may go below zero until later credits)',
    );
  }

  /** Tells what the wallet's record of a batch found by its tag says about its transfers. */
  #checkTransfers(batch: PayoutBatch, txHash: string, transfers: RecordTransfers): void {
    const check = checkBatchTransfers(batch, transfers);
    const { logger } = this.#modules;
    if (check.kind === 'missing') {
      for (const address of check.addresses) {
        logger.error(
          { batchId: batch.id, txHash, address },
          'wallet transaction of a batch lacks an expected transfer (recorded as sent anyway: the money left)',
        );
      }
    } else if (check.kind === 'rebuilt') {
      const fields = {
        batchId: batch.id,
        txHash,
        paidOutside: check.unnamedAtomic.toString(),
        batchTotal: check.expectedAtomic.toString(),
      };
      if (check.unnamedAtomic === check.expectedAtomic) {
        logger.info(
          fields,
          'the wallet rebuilt its record of this payout transaction from the chain (reset?): it lists no recipients, and what it paid outside the wallet is the batch total',
        );
      } else {
        logger.error(
          fields,
          'the wallet rebuilt its record of this payout transaction from the chain (reset?): what it paid outside the wallet is not the batch total (recorded as sent anyway: the money left)',
        );
      }
    }
  }
}
