import type { Redis } from 'ioredis';
import { isFeeAssumed, type PayoutBatch, sentAtMs } from '../model/payouts/payout-batch.js';
import type { PoolEventMap } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import { PaymentStoreError } from '../store/payments/payment-store-error.js';
import { PayoutStore } from '../store/payments/payout-store.js';
import { underPayoutLock } from './operator-payout-lock.js';

/** Confirmations before the operator may record a transaction as paid (the watch's depth). */
const PAID_DEPTH = 10;

export interface WalletMissingRequest {
  readonly txHash: string;
  /** paid: fuegod has it in a block; refund: in neither its chain nor its pool, and old enough. */
  readonly mode: 'paid' | 'refund';
  readonly note: string;
}

export interface WalletMissingSettlement {
  readonly batch: PayoutBatch;
  /** The block fuegod has the transaction in (paid only). */
  readonly blockHeight: number | null;
  /**
   * Paid only, for a batch whose fee was assumed: the fee fuegod shows the transaction paid, now
   * settled as the watch settles one (settle_fee), or null when fuegod's record cannot tell it
   * (the fee stays assumed). Undefined for any other batch.
   */
  readonly settledFeeAtomic?: bigint | null;
}

/**
 * The operator settles a sent batch whose transaction the wallet has no record of, on fuegod's
 * word and under the payout lock: `paid` when fuegod has the transaction in a block 10 deep
 * (recorded as confirmed there; no balance changes, the miners were debited when sent, but a fee
 * assumed at the send is first settled with the fee fuegod shows it paid, as the watch would have
 * once the wallet read it: any surplus back to its miners), `refund` when
 * fuegod has it in neither its chain nor its pool and it was sent at least `refundAfterMs` ago
 * (another node's pool may hold it until then): revert_sent credits its miners back, and should it
 * be mined after all, the scan's late path debits them again. Refuses (PaymentStoreError) a hash
 * that is no such batch, evidence that does not fit the mode, or a held lock.
 */
export async function settleWalletMissingBatch(
  keyPrefix: string,
  modules: {
    readonly redis: Redis;
    readonly daemon: Pick<
      DaemonClient,
      'findTransactionBlock' | 'getPoolTransactionHashes' | 'getBlockCount'
    >;
    readonly clock?: () => number;
  },
  opts: { readonly refundAfterMs: number },
  request: WalletMissingRequest,
): Promise<WalletMissingSettlement> {
  const { redis, daemon } = modules;
  const clock = modules.clock ?? Date.now;
  const journal = new PayoutStore({ keyPrefix }, { redis, clock });
  const batch = await walletMissingBatch(journal, request.txHash);
  const block = await daemon.findTransactionBlock(request.txHash);
  if (request.mode === 'paid') {
    if (block === null) {
      throw refusal(request.txHash, 'fuegod has it in no block: settle it as paid once it is mined');
    }
    const confirmations = (await daemon.getBlockCount()) - block.height;
    if (confirmations < PAID_DEPTH) {
      throw refusal(
        request.txHash,
        `it is ${confirmations} blocks deep in block ${block.height}: settle it as paid once ${PAID_DEPTH} deep`,
      );
    }
  }
  if (request.mode === 'refund') {
    if (block !== null) {
      throw refusal(
        request.txHash,
        `fuegod has it in block ${block.height}: it was paid, settle it with --paid`,
      );
    }
    if ((await daemon.getPoolTransactionHashes()).includes(request.txHash)) {
      throw refusal(request.txHash, "it is in fuegod's pool and may still be mined: wait");
    }
    const refundAtMs = sentAtMs(batch) + opts.refundAfterMs;
    if (clock() < refundAtMs) {
      throw refusal(
        request.txHash,
        `another node's pool may still hold it: refund it after ${new Date(refundAtMs).toISOString()} (payments.payouts.unresolvedRollbackAfterSec after the send)`,
      );
    }
  }
  return underPayoutLock(journal, async (writer) => {
    // Read again under the lock: a pass may have settled it meanwhile.
    const locked = await walletMissingBatch(journal, request.txHash);
    if (block === null) {
      // refund (paid needs a block)
      await journal.revertSent(writer, locked, `refunded by the operator: ${request.note}`);
      return { batch: locked, blockHeight: null };
    }
    let settledFeeAtomic: bigint | null | undefined;
    if (isFeeAssumed(locked)) {
      settledFeeAtomic = block.feeAtomic;
      if (block.feeAtomic !== null) await journal.settleAssumedFee(writer, locked, block.feeAtomic);
    }
    await journal.confirmSent(writer, locked.id, block.height, request.note);
    return {
      batch: locked,
      blockHeight: block.height,
      ...(settledFeeAtomic === undefined ? {} : { settledFeeAtomic }),
    };
  });
}

/** The payout-unknown-to-wallet-resolved event of a settlement made for `request`. */
export function walletMissingResolvedEvent(
  settlement: WalletMissingSettlement,
  request: WalletMissingRequest,
  nowMs: number,
): PoolEventMap['payout-unknown-to-wallet-resolved'] {
  const { batch, blockHeight } = settlement;
  return {
    batchId: batch.id,
    transactionHash: request.txHash,
    recipients: batch.transfers.length,
    amountAtomic: batch.totalAmountAtomic,
    resolution: request.mode === 'paid' ? 'paid' : 'refunded',
    blockHeight,
    note: request.note,
    timestampMs: nowMs,
  };
}

/** The sent batch of `txHash` that the wallet has no record of; refuses any other hash. */
async function walletMissingBatch(journal: PayoutStore, txHash: string): Promise<PayoutBatch> {
  const batchId = await journal.batchIdOfTransaction(txHash);
  const batch = batchId === null ? null : await journal.getBatch(batchId);
  if (batch === null || batch.state !== 'sent' || !(await journal.walletMissingSince()).has(batch.id)) {
    throw new PaymentStoreError(
      'BATCH_NOT_FOUND',
      `no sent batch the wallet has no record of has transaction ${txHash}`,
      { txHash },
    );
  }
  return batch;
}

function refusal(txHash: string, why: string): PaymentStoreError {
  return new PaymentStoreError('BATCH_STATE', `transaction ${txHash}: ${why}`, { txHash });
}

/** Whether `txHash` is the transaction of a sent batch the wallet has no record of. */
export async function isWalletMissingTransaction(
  keyPrefix: string,
  redis: Redis,
  txHash: string,
): Promise<boolean> {
  const journal = new PayoutStore({ keyPrefix }, { redis });
  const batchId = await journal.batchIdOfTransaction(txHash);
  return batchId !== null && (await journal.walletMissingSince()).has(batchId);
}
