import type { LoggedInMiner } from './simulated-miners.js';
import { nowMs, type ReceivedNotification } from './stratum-client.js';

/** Pushes timed per run (FUEGO_BENCH_PUSH_ROUNDS), after one uncounted warm-up push. */
export const PUSH_ROUNDS = Number(process.env['FUEGO_BENCH_PUSH_ROUNDS'] ?? 3);
/** The target: a new job reaches 10,000 miners within this p99 of the tip change. */
export const TARGET_PUSH_P99_MS = 250;
/** How long a push may take before the miners still waiting count as missing. */
const PUSH_TIMEOUT_MS = 10_000;

/** One new tip and the job notification it brought to each miner. */
export interface JobArrivals {
  /** Wall-clock ms (nowMs) right after the block was mined: the tip change. */
  readonly t0: number;
  /** Height of the jobs the new tip should bring (the mined block's height + 1). */
  readonly height: number;
  /** Each miner's first job notification after t0, in `miners` order; undefined if none came. */
  readonly arrivals: ReadonlyArray<ReceivedNotification | undefined>;
  /** Arrival minus t0 for every miner that got a job, ms, ascending. */
  readonly fromTipMs: number[];
  readonly missing: number;
  /** Notifications whose height was above the new one (should be 0). */
  readonly wrongHeight: number;
  /** A previous push's notifications that arrived after this one began (not counted as arrivals). */
  readonly lateEarlier: number;
}

/**
 * Changes the tip with `mineBlock` (which returns the new block's height) and waits, at most
 * `timeoutMs` (10 s by default), until every miner got its next job notification. Each arrival is stamped when its
 * chunk was read and parsed only afterwards, so parsing never delays a later stamp.
 */
export async function measureJobArrivals(
  miners: readonly LoggedInMiner[],
  mineBlock: () => number,
  timeoutMs = PUSH_TIMEOUT_MS,
): Promise<JobArrivals> {
  const arrivals: Array<ReceivedNotification | undefined> = new Array(miners.length);
  let received = 0;
  let allReceived: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  let lateEarlier = 0;
  // Set before any notification can be handled: mineBlock is synchronous.
  let height = Number.POSITIVE_INFINITY;
  miners.forEach((miner, i) => {
    miner.client.onJob = (notification) => {
      if (arrivals[i] !== undefined) return;
      if (jobHeight(notification.line) < height) {
        lateEarlier++;
        return;
      }
      arrivals[i] = notification;
      if (++received === miners.length) allReceived();
    };
  });
  height = mineBlock() + 1;
  const t0 = nowMs();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  for (const miner of miners) miner.client.onJob = undefined;

  const fromTipMs: number[] = [];
  let wrongHeight = 0;
  for (const arrival of arrivals) {
    if (arrival === undefined) continue;
    const job = (JSON.parse(arrival.line) as { params: { height: number } }).params;
    if (job.height !== height) wrongHeight++;
    fromTipMs.push(arrival.atMs - t0);
  }
  fromTipMs.sort((a, b) => a - b);
  return { t0, height, arrivals, fromTipMs, missing: miners.length - received, wrongHeight, lateEarlier };
}

/**
 * A job notification's height, read without parsing the whole line (it runs while arrivals are
 * stamped, once per miner per push): found from the end, where the pool writes it, and its
 * digits read in place.
 */
export function jobHeight(line: string): number {
  const at = line.lastIndexOf('"height":');
  if (at < 0) return Number.NaN;
  let height = 0;
  let digits = 0;
  for (let i = at + 9; i < line.length; i++, digits++) {
    const digit = line.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    height = height * 10 + digit;
  }
  return digits === 0 ? Number.NaN : height;
}
