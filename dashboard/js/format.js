/**
 * Text formatting for the dashboard. Amounts arrive from the API as atomic units in decimal strings
 * and are formatted with BigInt only: money never passes through a float. Hashrates and
 * difficulties are display values (not money), so numbers are fine there.
 */

const DIGIT_GROUPS = /\B(?=(\d{3})+(?!\d))/g;
const HASHRATE_UNITS = ['H/s', 'kH/s', 'MH/s', 'GH/s', 'TH/s', 'PH/s'];
const DECIMAL = /^-?\d+$/;
export const NO_VALUE = '—';

/** "12345678" -> "12,345,678" (a string of digits of any length). */
export function groupDigits(digits) {
  return digits.replace(DIGIT_GROUPS, ',');
}

/**
 * An atomic amount (decimal string) as coins, exactly: formatAtomic('123456789', 7) -> "12.3456789".
 * Trailing zeros of the fraction are dropped, but at least `minFraction` digits stay ("1.00").
 * Anything that is not a decimal string gives "—" rather than a wrong number.
 */
export function formatAtomic(atomic, decimals, minFraction = 2) {
  if (typeof atomic !== 'string' || !DECIMAL.test(atomic)) return NO_VALUE;
  let value = BigInt(atomic);
  const negative = value < 0n;
  if (negative) value = -value;
  const unit = 10n ** BigInt(decimals);
  const whole = groupDigits((value / unit).toString());
  let fraction = decimals === 0 ? '' : (value % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  fraction = fraction.padEnd(Math.min(minFraction, decimals), '0');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A 64-bit-or-wider count from a decimal string (difficulties), grouped: "1,234,567". */
export function formatBigDecimal(text) {
  if (typeof text !== 'string' || !DECIMAL.test(text)) return NO_VALUE;
  const negative = text.startsWith('-');
  return `${negative ? '-' : ''}${groupDigits(negative ? text.slice(1) : text)}`;
}

/**
 * `part` of `total` (decimal strings) as a percent with two decimals, exactly (BigInt, rounded
 * down): ('1', '3') -> "33.33 %"; "—" when total is 0 (nothing to take a part of) or not a number.
 */
export function formatPartPercent(part, total) {
  if (![part, total].every((text) => typeof text === 'string' && DECIMAL.test(text))) return NO_VALUE;
  if (BigInt(total) <= 0n) return NO_VALUE;
  const hundredths = (BigInt(part) * 10_000n) / BigInt(total);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')} %`;
}

/** H/s with a unit: 2413.7 -> "2.41 kH/s". */
export function formatHashrate(hashrate) {
  if (typeof hashrate !== 'number' || !Number.isFinite(hashrate) || hashrate < 0) return NO_VALUE;
  let value = hashrate;
  let unit = 0;
  while (value >= 1000 && unit < HASHRATE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value >= 100 ? 1 : 2)} ${HASHRATE_UNITS[unit]}`;
}

/** Network hashrate estimate: difficulty (decimal string) over the block target time. */
export function networkHashrate(difficulty, blockTargetSeconds) {
  if (typeof difficulty !== 'string' || !DECIMAL.test(difficulty) || !(blockTargetSeconds > 0)) return null;
  return Number(BigInt(difficulty)) / blockTargetSeconds;
}

export function formatCount(value) {
  return typeof value === 'number' && Number.isFinite(value)
    ? groupDigits(String(Math.trunc(value)))
    : NO_VALUE;
}

export function formatPercent(value) {
  return typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(1)} %` : NO_VALUE;
}

/** A duration in seconds, coarsely: 45 -> "45 s", 1800 -> "30 min", 7200 -> "2 h". */
export function formatDuration(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return NO_VALUE;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.round(seconds / 360) / 10} h`;
  return `${Math.round(seconds / 8640) / 10} d`;
}

/** How long ago `ms` was, relative to `nowMs`: "just now", "42 s ago", "5 min ago". */
export function formatAgo(ms, nowMs) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return NO_VALUE;
  const seconds = Math.max(0, (nowMs - ms) / 1000);
  if (seconds < 5) return 'just now';
  return `${formatDuration(seconds)} ago`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A full local date and time (for titles next to a relative time). */
export function formatDateTime(ms) {
  return typeof ms === 'number' && Number.isFinite(ms) ? dateTime.format(new Date(ms)) : NO_VALUE;
}

/** A long hash or address shortened for tables: "0123abcd…89ef4567". */
export function shorten(text, keep = 8) {
  if (typeof text !== 'string') return NO_VALUE;
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;
}
