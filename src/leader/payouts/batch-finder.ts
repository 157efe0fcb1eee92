import { findBatchTags } from '../../pool/payouts/batch-tag.js';
import type { PayoutWallet } from '../../pool/payouts/payout-wallet.js';
import {
  UNCONFIRMED_BLOCK_INDEX,
  WALLET_TRANSACTION_STATE,
  walletErrorKind,
} from '../../rpc/wallet-client.js';
import type { WalletTransaction } from '../../rpc/wallet-schemas.js';

/** The wallet calls a scan needs. */
export type WalletReader = Pick<
  PayoutWallet,
  'getStatus' | 'getTransactions' | 'getTransaction' | 'getUnconfirmedTransactionHashes'
>;

/** FAILED (the relay failed), CANCELLED (dropped from the daemon's pool unmined), DELETED. */
const NOT_SENT_STATES: ReadonlySet<number> = new Set([
  WALLET_TRANSACTION_STATE.FAILED,
  WALLET_TRANSACTION_STATE.CANCELLED,
  WALLET_TRANSACTION_STATE.DELETED,
]);

/**
 * What a tagged transaction says about its batch's money:
 * - 'sent': the wallet relayed it (state SUCCEEDED; confirmed or in the mempool);
 * - 'not-sent': FAILED, CANCELLED or DELETED: not relayed, or dropped from the daemon's pool
 *   unmined (walletd lists only SUCCEEDED records in getTransactions; getTransaction shows the rest);
 * - 'unsettled': built but not relayed (CREATED), or a state this code does not know.
 */
export type WalletOutcome = 'sent' | 'not-sent' | 'unsettled';

export interface TaggedTransaction {
  readonly batchId: string;
  /** The paying pool's id (see poolIdOf); null for a tag written before pools had one. */
  readonly poolId: string | null;
  readonly txHash: string;
  /** From the wallet's record: what walletd really paid, whatever was asked. */
  readonly feeAtomic: bigint;
  /** null while unconfirmed. */
  readonly blockIndex: number | null;
  readonly paymentId: string;
  readonly transfers: WalletTransaction['transfers'];
  readonly outcome: WalletOutcome;
}

export interface ScanResult {
  /** Every batch id found in the range, with the wallet's record of it. */
  readonly found: ReadonlyMap<string, TaggedTransaction>;
  /** Block indexes [from, to) that were read completely, plus the unconfirmed list. */
  readonly scannedFromBlockIndex: number;
  readonly scannedToBlockIndex: number;
}

export interface ScanLimits {
  /** Blocks per getTransactions call. */
  readonly pageBlocks: number;
  /** At most this many blocks back from the wallet's tip. */
  readonly maxBlocks: number;
  /** At most this many unconfirmed transactions are read one by one. */
  readonly maxUnconfirmed: number;
}

/** How a scan pages through the wallet; how far back it reads is the config's recoveryScanBlocks. */
export const SCAN_PAGING: Omit<ScanLimits, 'maxBlocks'> = { pageBlocks: 500, maxUnconfirmed: 500 };

export function walletOutcomeOf(state: number): WalletOutcome {
  if (state === WALLET_TRANSACTION_STATE.SUCCEEDED) return 'sent';
  return NOT_SENT_STATES.has(state) ? 'not-sent' : 'unsettled';
}

/** Which of two records of one batch tells more: a relayed one, then a confirmed one. */
function tellsMore(candidate: TaggedTransaction, previous: TaggedTransaction): boolean {
  const rank = (tx: TaggedTransaction) => (tx.outcome === 'sent' ? 2 : 0) + (tx.blockIndex !== null ? 1 : 0);
  return rank(candidate) > rank(previous);
}

/**
 * Finds the wallet's transactions that carry a batch tag in their extra: the unconfirmed ones
 * (getUnconfirmedTransactionHashes + getTransaction: walletd's getTransactions covers blocks only)
 * and those in blocks [fromBlockIndex, wallet blockCount), limited to the newest `maxBlocks`.
 * Throws when the wallet cannot be read: "not found" is only ever said after a complete read.
 */
export async function scanTaggedTransactions(
  wallet: WalletReader,
  fromBlockIndex: number,
  limits: ScanLimits,
): Promise<ScanResult> {
  const found = new Map<string, TaggedTransaction>();
  const consider = (record: WalletTransaction): void => {
    if (record.isBase) return;
    for (const { batchId, poolId } of findBatchTags(record.extra)) {
      const confirmed = record.blockIndex !== UNCONFIRMED_BLOCK_INDEX;
      const tagged: TaggedTransaction = {
        batchId,
        poolId,
        txHash: record.transactionHash,
        feeAtomic: BigInt(record.fee),
        blockIndex: confirmed ? record.blockIndex : null,
        paymentId: record.paymentId,
        transfers: record.transfers,
        outcome: walletOutcomeOf(record.state),
      };
      const previous = found.get(batchId);
      if (previous === undefined || tellsMore(tagged, previous)) found.set(batchId, tagged);
    }
  };

  const unconfirmed = await wallet.getUnconfirmedTransactionHashes();
  for (const hash of unconfirmed.slice(0, limits.maxUnconfirmed)) {
    let record: WalletTransaction;
    try {
      record = await wallet.getTransaction(hash);
    } catch (error) {
      // Gone from the wallet's records between the two calls (29 "Object not found"): nothing to
      // read. Any other failure (5 "Internal error occurred": busy, restarting) leaves a pending
      // transaction unread, perhaps an open batch's: the scan is not complete, and "not found"
      // would roll back a batch whose transaction may still be mined.
      if (walletErrorKind(error) === 'OBJECT_NOT_FOUND') continue;
      throw error;
    }
    consider(record);
  }

  // The tip is read after the unconfirmed list: a transaction mined in between is then inside
  // the block range instead of falling between the two reads.
  const to = (await wallet.getStatus()).blockCount;
  const from = Math.max(0, fromBlockIndex, to - limits.maxBlocks);
  for (let first = from; first < to; first += limits.pageBlocks) {
    const blockCount = Math.min(limits.pageBlocks, to - first);
    const items = await wallet.getTransactions({ firstBlockIndex: first, blockCount });
    for (const item of items) for (const record of item.transactions) consider(record);
  }
  return { found, scannedFromBlockIndex: from, scannedToBlockIndex: to };
}
