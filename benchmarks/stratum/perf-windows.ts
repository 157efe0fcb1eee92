/**
 * Time windows on a profiler's clock, as `push-profile.ts --windows` takes them: `FROM-TO`
 * seconds, comma-separated (what the connections benchmark prints for its counted pushes on
 * CLOCK_MONOTONIC).
 */
export function parseWindows(text: string): Array<[number, number]> {
  const windows = text.split(',').map((pair) => {
    const match = /^\s*(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)\s*$/.exec(pair);
    const from = Number(match?.[1]);
    const to = Number(match?.[2]);
    return match !== null && from <= to ? ([from, to] as [number, number]) : undefined;
  });
  if (windows.some((window) => window === undefined)) {
    throw new Error(
      `--windows takes FROM-TO seconds, comma-separated, FROM <= TO (say 36040.3-36041.1), not "${text}"`,
    );
  }
  return windows as Array<[number, number]>;
}
