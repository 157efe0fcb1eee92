import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATOMIC_UNITS_PER_COIN,
  formatAtomic,
  MAX_AMOUNT_ATOMIC,
  MINIMUM_FEE_ATOMIC,
  MoneyError,
  parseCoins,
} from '../../src/fuego/money.js';

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof MoneyError) return error.code;
    throw error;
  }
  return undefined;
}

describe('money units', () => {
  it('has Fuego constants: 1 XFG = 10^7 atomic, minimum fee 0.008 XFG', () => {
    expect(ATOMIC_UNITS_PER_COIN).toBe(10_000_000n);
    expect(MINIMUM_FEE_ATOMIC).toBe(80_000n);
    expect(formatAtomic(MINIMUM_FEE_ATOMIC)).toBe('0.0080000');
  });

  it('formats with exactly 7 decimals', () => {
    expect(formatAtomic(123_456_789n)).toBe('12.3456789');
    expect(formatAtomic(10_000_000n)).toBe('1.0000000');
    expect(formatAtomic(0n)).toBe('0.0000000');
    expect(formatAtomic(1n)).toBe('0.0000001');
    expect(formatAtomic(-5n)).toBe('-0.0000005');
    expect(formatAtomic(-123_456_789n)).toBe('-12.3456789');
    expect(formatAtomic(MAX_AMOUNT_ATOMIC)).toBe('1844674407370.9551615');
  });

  it('parses decimal coin amounts exactly', () => {
    expect(parseCoins('12.5')).toBe(125_000_000n);
    expect(parseCoins('0.008')).toBe(80_000n);
    expect(parseCoins('1')).toBe(10_000_000n);
    expect(parseCoins('0.0000001')).toBe(1n);
    expect(parseCoins('12.3456789')).toBe(123_456_789n);
    expect(parseCoins('007.10')).toBe(71_000_000n);
    expect(parseCoins('1844674407370.9551615')).toBe(MAX_AMOUNT_ATOMIC);
    expect(parseCoins('-2.5', { allowNegative: true })).toBe(-25_000_000n);
  });

  it('rejects what it cannot represent exactly', () => {
    expect(errorCode(() => parseCoins('0.00000001'))).toBe('TOO_MANY_DECIMALS');
    expect(errorCode(() => parseCoins('1.00000000'))).toBe('TOO_MANY_DECIMALS');
    expect(errorCode(() => parseCoins('-1'))).toBe('NEGATIVE_AMOUNT');
    expect(errorCode(() => parseCoins('-0'))).toBe('NEGATIVE_AMOUNT');
    expect(errorCode(() => parseCoins('1844674407370.9551616'))).toBe('AMOUNT_OUT_OF_RANGE');
    for (const garbage of [
      '',
      ' 1',
      '1 ',
      '+1',
      '.5',
      '1.',
      '1e3',
      '1,5',
      '0x10',
      'NaN',
      'abc',
      '--1',
      '1.2.3',
    ]) {
      expect(errorCode(() => parseCoins(garbage))).toBe('INVALID_AMOUNT');
    }
  });

  it('parse(format(x)) = x for every uint64 amount, and signed ones when allowed', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_AMOUNT_ATOMIC }), (amount) => {
        expect(parseCoins(formatAtomic(amount))).toBe(amount);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -MAX_AMOUNT_ATOMIC, max: MAX_AMOUNT_ATOMIC }), (amount) => {
        expect(parseCoins(formatAtomic(amount), { allowNegative: true })).toBe(amount);
      }),
    );
  });
});
