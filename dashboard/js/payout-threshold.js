/**
 * The client side of a signed payout threshold (src/servers/api/API.md, "Payout threshold"): the
 * message a miner signs in their wallet and what is sent back. Pure functions (no DOM), so the tests
 * check them against the pool's own definition (src/pool/payouts/miner-threshold.ts).
 */

export const MESSAGE_PREFIX = 'payout-threshold:v1';
/** "Sig" + 88 base58 characters: exactly the 64-byte signature. */
export const SIGNATURE_TEXT_LENGTH = 91;

const COINS = /^(\d+)(?:\.(\d+))?$/;

/** "25.5" -> 255000000n with 7 decimals; null for anything that is not such an amount. */
export function coinsToAtomic(text, decimals) {
  const match = COINS.exec(typeof text === 'string' ? text.trim() : '');
  if (match === null || (match[2] ?? '').length > decimals) return null;
  return BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt((match[2] ?? '').padEnd(decimals, '0') || '0');
}

/** Atomic units as coins with every decimal and no grouping: 255000000n -> "25.5000000". */
export function atomicToPlainCoins(atomic, decimals) {
  const unit = 10n ** BigInt(decimals);
  const fraction = (atomic % unit).toString().padStart(decimals, '0');
  return decimals === 0 ? (atomic / unit).toString() : `${atomic / unit}.${fraction}`;
}

/** The one-word text to sign: `payout-threshold:v1:<pool>:<address>:<amount>:<unix seconds>`. */
export function thresholdMessage(poolName, address, thresholdAtomic, timestampSec, decimals) {
  return [
    MESSAGE_PREFIX,
    poolName,
    address,
    atomicToPlainCoins(thresholdAtomic, decimals),
    timestampSec,
  ].join(':');
}

/**
 * What may be sent of a pasted `sign_message` output: without whitespace, and cut to the
 * signature. simplewallet prints the bytes after the signature too, up to a 0 byte in its memory,
 * which can include the wallet's secret keys: they never leave the page. `cut` says whether
 * anything was left out.
 */
export function signatureToSend(pasted) {
  const text = String(pasted).replace(/\s+/g, '');
  const cut = text.startsWith('Sig') && text.length > SIGNATURE_TEXT_LENGTH;
  return { signature: cut ? text.slice(0, SIGNATURE_TEXT_LENGTH) : text, cut };
}
