/** Fuego amounts have 7 decimals: 1 XFG = 10^7 atomic units. */
const DECIMALS = 7;
const COIN_AMOUNT_PATTERN = /^(\d+)(?:\.(\d{1,7}))?$/;
/** Amounts are uint64 on the chain. */
const MAX_ATOMIC = (1n << 64n) - 1n;

/**
 * A non-negative coin amount from the config ("0.5", "100") as atomic units, or null when it is
 * not one (more than 7 decimals, a sign, an exponent, out of range). The config checks amounts
 * with this; the services convert them with src/fuego/money.ts `parseCoins`, which accepts the
 * same texts (tested).
 */
export function coinAmountAtomic(text: string): bigint | null {
  const match = COIN_AMOUNT_PATTERN.exec(text);
  if (match === null) return null;
  const atomic = BigInt(match[1]!) * 10n ** BigInt(DECIMALS) + BigInt((match[2] ?? '').padEnd(DECIMALS, '0'));
  return atomic <= MAX_ATOMIC ? atomic : null;
}
