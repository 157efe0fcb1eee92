/**
 * CSV as RFC 4180 writes it: a header row, CRLF line ends, a field quoted when it holds a comma,
 * a double quote, CR or LF (its quotes doubled). Used by the miner exports (miner-exports.ts).
 */

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function toCsv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

/** An atomic amount as an exact decimal with all `decimals` places ("-0.0000005", "12.5000000"). */
export function atomicToDecimal(atomic: bigint, decimals: number): string {
  const negative = atomic < 0n;
  const digits = (negative ? -atomic : atomic).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals);
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`;
}
