import type { Logger } from '../../log/logger.js';
import type { PayoutBatch, PayoutWriter } from '../../model/payouts/payout-batch.js';
import type { PayoutJournal } from '../../model/payouts/payout-journal.js';
import {
  type PayoutWatch,
  type UnknownPayment,
  unknownPaymentAmount,
  unresolvedUnnamedPayment,
} from '../../model/payouts/payout-watch.js';
import type { BatchReport } from '../../pool/payouts/payout-reports.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import {
  SCAN_PAGING,
  type ScanResult,
  scanTaggedTransactions,
  type TaggedTransaction,
} from './batch-finder.js';
import { type Settlement, settleOpenBatch } from './batch-settlement.js';
import { checkBatchTransfers, type RecordTransfers } from './batch-transfers.js';
import { batchReport } from './payout-summary.js';
import { SentWatch, type SentWatchResult } from './sent-watch.js';
import { addressesHeldByUnknownPayments, unknownPaymentsIn } from './unknown-payments.js';

const UNNAMED_PAYMENT_MESSAGE =
  'the wallet paid a tagged transaction Redis has no batch for (Redis lost writes?) to recipients it cannot name (walletd rebuilt its record from the chain after a reset): no miner is paid until you resolve it: take whom it paid from this log (the info line "payout batch sending" of its batchId) and run `fuego-pool payout resolve TXHASH --paid --recipients FILE` (see `fuego-pool report`)';

/** Blocks before a batch's recorded wallet height (or the scan cursor) that a scan also reads. */
const SCAN_MARGIN_BLOCKS = 20;

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
  readonly #sentWatch: SentWatch;

  constructor(opts: PayoutRecoveryOptions, modules: PayoutRecoveryModules) {
    this.#opts = opts;
    this.#modules = modules;
    this.#sentWatch = new SentWatch(opts, modules);
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

  /** The sent batches watched until deep in the chain (sent-watch.ts). */
  watchSentBatches(writer: PayoutWriter): Promise<SentWatchResult> {
    return this.#sentWatch.watch(writer);
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
