import { findBatchIds } from '../../pool/payouts/batch-tag.js';
import { UNCONFIRMED_BLOCK_INDEX, type WalletClient } from '../../rpc/wallet-client.js';
import type { WalletTransaction } from '../../rpc/wallet-schemas.js';

/** The wallet calls a recovery scan needs. */
export type WalletReader = Pick<
  WalletClient,
  'getStatus' | 'getTransactions' | 'getTransaction' | 'getUnconfirmedTransactionHashes'
>;

export interface TaggedTransaction {
  readonly batchId: string;
  readonly txHash: string;
  /** From the wallet's record: what walletd really paid, whatever was asked. */
  readonly feeAtomic: bigint;
  /** null while unconfirmed. */
  readonly blockIndex: number | null;
  readonly transfers: WalletTransaction['transfers'];
}

export interface ScanResult {
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

export const DEFAULT_SCAN_LIMITS: ScanLimits = { pageBlocks: 500, maxBlocks: 20_000, maxUnconfirmed: 500 };

/**
 * Finds the wallet's transactions that carry one of `batchIds` in their extra: the unconfirmed ones
 * (getUnconfirmedTransactionHashes + getTransaction: walletd's getTransactions covers blocks only)
 * and those in blocks [fromBlockIndex, wallet blockCount), limited to the newest `maxBlocks`.
 * Throws when the wallet cannot be read: "not found" is only ever said after a complete read.
 */
export async function scanForBatches(
  wallet: WalletReader,
  batchIds: ReadonlySet<string>,
  fromBlockIndex: number,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<ScanResult> {
  const found = new Map<string, TaggedTransaction>();
  const consider = (record: WalletTransaction): void => {
    if (record.isBase) return;
    for (const batchId of findBatchIds(record.extra)) {
      if (!batchIds.has(batchId)) continue;
      const confirmed = record.blockIndex !== UNCONFIRMED_BLOCK_INDEX;
      const previous = found.get(batchId);
      // A confirmed sighting wins over an unconfirmed one of the same transaction.
      if (previous && previous.blockIndex !== null && !confirmed) continue;
      found.set(batchId, {
        batchId,
        txHash: record.transactionHash,
        feeAtomic: BigInt(record.fee),
        blockIndex: confirmed ? record.blockIndex : null,
        transfers: record.transfers,
      });
    }
  };

  const unconfirmed = await wallet.getUnconfirmedTransactionHashes();
  for (const hash of unconfirmed.slice(0, limits.maxUnconfirmed)) {
    let record: WalletTransaction;
    try {
      record = await wallet.getTransaction(hash);
    } catch {
      // Confirmed (or dropped) between the two calls: the block scan below sees a confirmed one.
      continue;
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
