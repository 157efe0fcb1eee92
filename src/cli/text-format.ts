/**
 * Plain-text layout for operator commands: aligned tables and human units. Pure functions, so
 * each command's output is tested as text.
 */

/** Columns separated by two spaces, each as wide as its widest cell; trailing blanks trimmed. */
export function formatTable(
  rows: ReadonlyArray<readonly string[]>,
  options: { rightAlign?: readonly number[] } = {},
): string[] {
  const right = new Set(options.rightAlign ?? []);
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(0, ...rows.map((row) => (row[c] ?? '').length)),
  );
  return rows.map((row) =>
    row
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}

const HASHRATE_UNITS = ['H/s', 'kH/s', 'MH/s', 'GH/s', 'TH/s', 'PH/s'];

/** 1_234_567 -> "1.23 MH/s"; below 1000 H/s: "950.00 H/s". */
export function formatHashrate(hashesPerSecond: number): string {
  let value = Number.isFinite(hashesPerSecond) && hashesPerSecond > 0 ? hashesPerSecond : 0;
  let unit = 0;
  while (value >= 1000 && unit < HASHRATE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(2)} ${HASHRATE_UNITS[unit]}`;
}

/** 3723 -> "1h 02m 03s"; 59 -> "59s"; 90061 -> "1d 01h 01m". */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (days > 0) return `${days}d ${two(hours)}h ${two(minutes)}m`;
  if (hours > 0) return `${hours}h ${two(minutes)}m ${two(seconds)}s`;
  if (minutes > 0) return `${minutes}m ${two(seconds)}s`;
  return `${seconds}s`;
}

/** Time since `thenMs`: "12s ago"; "-" for 0 (never). */
export function formatAgo(thenMs: number, nowMs: number): string {
  if (thenMs <= 0) return '-';
  return `${formatDuration((nowMs - thenMs) / 1000)} ago`;
}
