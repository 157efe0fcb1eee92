import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { parseTxExtra } from '../../fuego/tx-extra.js';

/** A payout batch id: 16 random bytes as 32 lowercase hex characters. */
export const BATCH_ID_PATTERN = /^[0-9a-f]{32}$/;
const PAYMENT_ID_PATTERN = /^[0-9a-f]{64}$/;

/** "FP" + version 1: the first bytes of the pool's extra-nonce payload. */
const TAG_MAGIC = [0x46, 0x50, 0x01] as const;
const BATCH_ID_BYTES = 16;
const TAG_PAYLOAD_BYTES = TAG_MAGIC.length + BATCH_ID_BYTES;
const TX_EXTRA_NONCE = 0x02;
/** Payment id nonce payload: 0x00 then the 32-byte id (what walletd's addPaymentIdToExtra writes). */
const PAYMENT_ID_NONCE_PREFIX = 0x00;

/**
 * The `extra` hex the pool hands to walletd's sendTransaction for one batch.
 *
 * Layout (offsets in bytes):
 *   with a payment id:  0 0x02 | 1 0x21 | 2 0x00 | 3..34 payment id | 35.. batch tag (21 bytes)
 *   batch tag:          0 0x02 | 1 0x13 | 2..4 "FP" 0x01 | 5..20 batch id (16 bytes)
 *
 * Why the payment id goes here and not in sendTransaction's `paymentId`: walletd 1.9.3
 * (PaymentGate/WalletService.cpp) uses `extra` only when `paymentId` is empty - with a payment id
 * the batch tag would be dropped and a crashed payout could not be recognised. The payment id
 * nonce comes first because wallets read the payment id from the first extra nonce of a
 * transaction. The batch tag is another extra nonce, which parseTransactionExtra accepts and
 * skips; walletd puts its tx public key (0x01 ...) before these bytes and returns the whole extra
 * in the transaction record, where findBatchIds reads the tag back.
 */
export function buildPayoutExtra(batchId: string, paymentId = ''): string {
  if (!BATCH_ID_PATTERN.test(batchId)) throw new RangeError('batch id must be 32 lowercase hex characters');
  const parts: string[] = [];
  if (paymentId !== '') {
    if (!PAYMENT_ID_PATTERN.test(paymentId)) throw new RangeError('payment id must be 64 lowercase hex');
    parts.push(bytesToHex(Uint8Array.of(TX_EXTRA_NONCE, 1 + 32, PAYMENT_ID_NONCE_PREFIX)), paymentId);
  }
  parts.push(bytesToHex(Uint8Array.of(TX_EXTRA_NONCE, TAG_PAYLOAD_BYTES, ...TAG_MAGIC)), batchId);
  return parts.join('');
}

/**
 * Batch ids tagged in a transaction's extra (normally zero or one). Walks the fields as the daemon
 * does, and also searches byte by byte for the tag: an extra that does not parse, or that the walk
 * reads out of step (an unknown tag is skipped alone), must never hide a tagged transaction. A
 * false match would need 19 exact bytes and an open batch with that id.
 */
export function findBatchIds(extraHex: string): string[] {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(extraHex.toLowerCase());
  } catch {
    return [];
  }
  const ids = new Set<string>(scanForTags(bytes));
  try {
    for (const field of parseTxExtra(bytes)) {
      if (field.kind === 'nonce' && isTagPayload(field.nonce)) {
        ids.add(bytesToHex(field.nonce.subarray(TAG_MAGIC.length)));
      }
    }
  } catch {
    // the byte search above already covered it
  }
  return [...ids];
}

function isTagPayload(nonce: Uint8Array): boolean {
  return (
    nonce.length === TAG_PAYLOAD_BYTES &&
    nonce[0] === TAG_MAGIC[0] &&
    nonce[1] === TAG_MAGIC[1] &&
    nonce[2] === TAG_MAGIC[2]
  );
}

function scanForTags(bytes: Uint8Array): string[] {
  const ids: string[] = [];
  for (let i = 0; i + 2 + TAG_PAYLOAD_BYTES <= bytes.length; i++) {
    if (bytes[i] !== TX_EXTRA_NONCE || bytes[i + 1] !== TAG_PAYLOAD_BYTES) continue;
    const payload = bytes.subarray(i + 2, i + 2 + TAG_PAYLOAD_BYTES);
    if (isTagPayload(payload)) ids.push(bytesToHex(payload.subarray(TAG_MAGIC.length)));
  }
  return ids;
}
