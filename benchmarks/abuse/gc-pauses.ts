/**
 * The pool's garbage-collection pauses, read from node's `--trace-gc` lines on its stdout, so the
 * abuse benchmark can say how much of an honest miner's wait was the pool's event loop stopped
 * for GC. A line looks like
 *   [1234:0x5a1b2c0]   8985 ms: Scavenge 40.2 (72.0) -> 31.0 (72.3) MB, 13.22 / 0.12 ms  (...)
 * where 13.22 ms is the pause. Each V8 isolate (the main thread and every verifier worker thread)
 * has its own address; only the main thread's pauses stop the event loop. It is told apart as the
 * isolate with the most collections: the verifier workers hash without allocating much.
 */

const TRACE_LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: ([A-Za-z-]+)[^,]*, ([\d.]+) \/ [\d.]+ ms/;

interface Pause {
  /** When the line arrived (Date.now()): the pause ended just before. */
  readonly atMs: number;
  readonly pauseMs: number;
}

export interface GcPauseSummary {
  readonly count: number;
  readonly maxMs: number;
  readonly totalMs: number;
}

export class GcPauses {
  readonly #byIsolate = new Map<string, Pause[]>();

  /** Takes one line of the pool's raw (non-JSON) output; anything but a trace line is ignored. */
  record(line: string, atMs = Date.now()): void {
    const match = TRACE_LINE.exec(line);
    if (match === null) return;
    const [, isolate = '', , pause = '0'] = match;
    const pauses = this.#byIsolate.get(isolate) ?? [];
    pauses.push({ atMs, pauseMs: Number(pause) });
    this.#byIsolate.set(isolate, pauses);
  }

  /** The main thread's pauses that ended in [fromMs, toMs). */
  between(fromMs: number, toMs: number): GcPauseSummary {
    let main: Pause[] = [];
    for (const pauses of this.#byIsolate.values()) if (pauses.length > main.length) main = pauses;
    let count = 0;
    let maxMs = 0;
    let totalMs = 0;
    for (const { atMs, pauseMs } of main) {
      if (atMs < fromMs || atMs >= toMs) continue;
      count += 1;
      maxMs = Math.max(maxMs, pauseMs);
      totalMs += pauseMs;
    }
    return { count, maxMs: Math.round(maxMs * 10) / 10, totalMs: Math.round(totalMs) };
  }
}
