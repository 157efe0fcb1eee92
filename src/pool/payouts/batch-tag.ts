import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';
import { parseTxExtra } from '../../fuego/tx-extra.js';

/** A payout batch id: 16 random bytes as 32 lowercase hex characters. */
export const BATCH_ID_PATTERN = /^[0-9a-f]{32}$/;
const PAYMENT_ID_PATTERN = /^[0-9a-f]{64}$/;
/** A pool id: 4 bytes as 8 lowercase hex characters. */
const POOL_ID_PATTERN = /^[0-9a-f]{8}$/;

/** "FP" + version: the first bytes of the pool's extra-nonce payload. */
const TAG_V1 = [0x46, 0x50, 0x01] as const;
const TAG_V2 = [0x46, 0x50, 0x02] as const;
const BATCH_ID_BYTES = 16;
const POOL_ID_BYTES = 4;
const V1_PAYLOAD_BYTES = TAG_V1.length + BATCH_ID_BYTES;
const V2_PAYLOAD_BYTES = TAG_V2.length + POOL_ID_BYTES + BATCH_ID_BYTES;
const TX_EXTRA_NONCE = 0x02;
/** Payment id nonce payload: 0x00 then the 32-byte id (what walletd's addPaymentIdToExtra writes). */
const PAYMENT_ID_NONCE_PREFIX = 0x00;

/**
 * The pool whose wallet a tag is from: the first 4 bytes of cn_fast_hash of its Redis key prefix.
 * Two pools paying from one wallet (or tests sharing a devnet wallet) tell their batches apart by
 * it; a pool that lost its Redis keeps its prefix and so still knows its own transactions.
 */
export function poolIdOf(keyPrefix: string): string {
  return bytesToHex(cnFastHash(new TextEncoder().encode(keyPrefix)).subarray(0, POOL_ID_BYTES));
}

/** A batch tag read back from a transaction. `poolId` is null for a v1 tag (written before ids). */
export interface BatchTag {
  readonly batchId: string;
  readonly poolId: string | null;
}

/**
 * The `extra` hex the pool hands to walletd's sendTransaction for one batch.
 *
 * Layout (offsets in bytes):
 *   with a payment id:  0 0x02 | 1 0x21 | 2 0x00 | 3..34 payment id | 35.. batch tag (25 bytes)
 *   batch tag (v2):     0 0x02 | 1 0x17 | 2..4 "FP" 0x02 | 5..8 pool id | 9..24 batch id
 *   batch tag (v1, read only): 0 0x02 | 1 0x13 | 2..4 "FP" 0x01 | 5..20 batch id
 *
 * Why the payment id goes here and not in sendTransaction's `paymentId`: walletd 1.9.3
 * (PaymentGate/WalletService.cpp) uses `extra` only when `paymentId` is empty - with a payment id
 * the batch tag would be dropped and a crashed payout could not be recognised. The payment id
 * nonce comes first because wallets read the payment id from the first extra nonce of a
 * transaction. The batch tag is another extra nonce, which parseTransactionExtra accepts and
 * skips; walletd puts its tx public key (0x01 ...) before these bytes and returns the whole extra
 * in the transaction record, where findBatchTags reads the tag back.
 */
export function buildPayoutExtra(batchId: string, paymentId: string, poolId: string): string {
  if (!BATCH_ID_PATTERN.test(batchId)) throw new RangeError('batch id must be 32 lowercase hex characters');
  if (!POOL_ID_PATTERN.test(poolId)) throw new RangeError('pool id must be 8 lowercase hex characters');
  const parts: string[] = [];
  if (paymentId !== '') {
    if (!PAYMENT_ID_PATTERN.test(paymentId)) throw new RangeError('payment id must be 64 lowercase hex');
    parts.push(bytesToHex(Uint8Array.of(TX_EXTRA_NONCE, 1 + 32, PAYMENT_ID_NONCE_PREFIX)), paymentId);
  }
  parts.push(bytesToHex(Uint8Array.of(TX_EXTRA_NONCE, V2_PAYLOAD_BYTES, ...TAG_V2)), poolId, batchId);
  return parts.join('');
}

/**
 * Batch tags in a transaction's extra (normally zero or one). Walks the fields as the daemon
 * does, and also searches byte by byte for a tag: an extra that does not parse, or that the walk
 * reads out of step (an unknown tag is skipped alone), must never hide a tagged transaction. A
 * false match would need 19+ exact bytes and a batch with that id.
 */
export function findBatchTags(extraHex: string): BatchTag[] {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(extraHex.toLowerCase());
  } catch {
    return [];
  }
  const tags = new Map<string, BatchTag>();
  const add = (tag: BatchTag | null): void => {
    if (tag !== null) tags.set(`${tag.poolId ?? ''}:${tag.batchId}`, tag);
  };
  for (let i = 0; i + 2 <= bytes.length; i++) {
    if (bytes[i] !== TX_EXTRA_NONCE) continue;
    const length = bytes[i + 1]!;
    if (i + 2 + length <= bytes.length) add(tagOf(bytes.subarray(i + 2, i + 2 + length)));
  }
  try {
    for (const field of parseTxExtra(bytes)) if (field.kind === 'nonce') add(tagOf(field.nonce));
  } catch {
    // the byte search above already covered it
  }
  return [...tags.values()];
}

/** The batch ids tagged in a transaction's extra, of any pool. */
export function findBatchIds(extraHex: string): string[] {
  return [...new Set(findBatchTags(extraHex).map((tag) => tag.batchId))];
}

function startsWith(payload: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, index) => payload[index] === byte);
}

function tagOf(payload: Uint8Array): BatchTag | null {
  if (payload.length === V2_PAYLOAD_BYTES && startsWith(payload, TAG_V2)) {
    const poolStart = TAG_V2.length;
    return {
      poolId: bytesToHex(payload.subarray(poolStart, poolStart + POOL_ID_BYTES)),
      batchId: bytesToHex(payload.subarray(poolStart + POOL_ID_BYTES)),
    };
  }
  if (payload.length === V1_PAYLOAD_BYTES && startsWith(payload, TAG_V1)) {
    return { poolId: null, batchId: bytesToHex(payload.subarray(TAG_V1.length)) };
  }
  return null;
}
