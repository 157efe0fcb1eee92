import { FuegoPoolError } from '../errors.js';

export type MoneyErrorCode =
  | 'INVALID_AMOUNT'
  | 'TOO_MANY_DECIMALS'
  | 'NEGATIVE_AMOUNT'
  | 'AMOUNT_OUT_OF_RANGE';

/** An amount the pool refuses to turn into atomic units. */
export class MoneyError extends FuegoPoolError<MoneyErrorCode> {}

/** 1 XFG = 10^7 atomic units; the daemon and wallet only ever speak atomic units. */
export const COIN_DECIMALS = 7;
export const ATOMIC_UNITS_PER_COIN = 10_000_000n;
/** The network's minimum (and walletd's default) transaction fee: 0.008 XFG. */
export const MINIMUM_FEE_ATOMIC = 80_000n;
/** Amounts are uint64 on the chain. */
export const MAX_AMOUNT_ATOMIC = (1n << 64n) - 1n;

/**
 * Atomic units as a coin amount with exactly 7 decimals, never trimmed, so every value has one
 * spelling and columns line up: 123456789n → "12.3456789", 10_000_000n → "1.0000000",
 * 1n → "0.0000001", -5n → "-0.0000005". Exact: bigint only, no floats.
 */
export function formatAtomic(amountAtomic: bigint): string {
  const sign = amountAtomic < 0n ? '-' : '';
  const magnitude = amountAtomic < 0n ? -amountAtomic : amountAtomic;
  const whole = magnitude / ATOMIC_UNITS_PER_COIN;
  const fraction = (magnitude % ATOMIC_UNITS_PER_COIN).toString().padStart(COIN_DECIMALS, '0');
  return `${sign}${whole}.${fraction}`;
}

export interface ParseCoinsOptions {
  /** Accept a leading '-' (default false: amounts to pay or thresholds are never negative). */
  readonly allowNegative?: boolean;
}

const COINS_PATTERN = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal coin amount as atomic units (a '-' sign, even on zero, needs `allowNegative`): "12.5" → 125_000_000n. Accepts digits with an optional
 * fraction of 1..7 digits ("1", "0.008", "12.3456789"); rejects more than 7 decimals (they cannot be
 * paid), exponents, '+', spaces, ".5", "1." and anything else, and amounts above 2^64−1 atomic.
 */
export function parseCoins(text: string, options: ParseCoinsOptions = {}): bigint {
  const match = COINS_PATTERN.exec(text);
  if (match === null) {
    throw new MoneyError('INVALID_AMOUNT', `'${text}' is not a decimal coin amount`, { text });
  }
  const [, sign = '', whole = '0', fraction = ''] = match;
  if (fraction.length > COIN_DECIMALS) {
    throw new MoneyError('TOO_MANY_DECIMALS', `'${text}' has more than ${COIN_DECIMALS} decimals`, { text });
  }
  const magnitude =
    BigInt(whole) * ATOMIC_UNITS_PER_COIN + BigInt(fraction.padEnd(COIN_DECIMALS, '0') || '0');
  if (magnitude > MAX_AMOUNT_ATOMIC) {
    throw new MoneyError('AMOUNT_OUT_OF_RANGE', `'${text}' is above the largest amount`, { text });
  }
  if (sign === '-') {
    if (options.allowNegative !== true) {
      throw new MoneyError('NEGATIVE_AMOUNT', `'${text}' is negative`, { text });
    }
    return -magnitude;
  }
  return magnitude;
}
