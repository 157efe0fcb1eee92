/** Options of one progress display. */
export interface ProgressBarOptions {
  /** Shown first on every line, e.g. "payout". */
  readonly label: string;
  /** Cells of the bar on a terminal. */
  readonly widthCells?: number;
  /** A terminal line is redrawn at most this often (a flood of updates costs nothing). */
  readonly redrawIntervalMs?: number;
  /** Without a terminal, an update that changes nothing but the time is printed at most this often. */
  readonly plainIntervalMs?: number;
}

export interface ProgressUpdate {
  /** Units done so far. */
  readonly done: number;
  /** Total units, when known; without it the bar shows activity instead of a fraction. */
  readonly total?: number | null;
  readonly detail?: string;
}

interface TtyLike {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

const DEFAULTS = { widthCells: 24, redrawIntervalMs: 100, plainIntervalMs: 10_000 };

/**
 * Progress of a long operation on a stream (stderr, so stdout stays the result). On a terminal
 * one line is redrawn in place: `payout [######------]  50% 5/10  batch b-1 sent  12s`, or a
 * moving block when the total is unknown. Anywhere else (a pipe, a log file, a test stream)
 * plain lines are written, one per real change and otherwise one per plainIntervalMs, so a cron
 * log shows what happened without a thousand redraws.
 */
export class ProgressBar {
  readonly #options: Required<ProgressBarOptions>;
  readonly #stream: NodeJS.WritableStream;
  readonly #clock: () => number;
  readonly #tty: boolean;
  readonly #startedAtMs: number;
  #last: ProgressUpdate = { done: 0 };
  #lastDrawMs = Number.NEGATIVE_INFINITY;
  #lastPlainKey = '';
  #frame = 0;
  #finished = false;

  constructor(
    options: ProgressBarOptions,
    modules: { readonly stream: NodeJS.WritableStream; readonly clock?: () => number },
  ) {
    this.#options = { ...DEFAULTS, ...options };
    this.#stream = modules.stream;
    this.#clock = modules.clock ?? Date.now;
    this.#tty = (modules.stream as TtyLike).isTTY === true;
    this.#startedAtMs = this.#clock();
  }

  update(update: ProgressUpdate): void {
    if (this.#finished) return;
    this.#last = update;
    const now = this.#clock();
    if (this.#tty) {
      if (now - this.#lastDrawMs < this.#options.redrawIntervalMs) return;
      this.#lastDrawMs = now;
      this.#frame += 1;
      this.#stream.write(`\r${this.#fit(this.#ttyLine(now))}\u001b[K`);
      return;
    }
    const key = `${update.done}/${update.total ?? ''}/${update.detail ?? ''}`;
    if (key === this.#lastPlainKey && now - this.#lastDrawMs < this.#options.plainIntervalMs) return;
    this.#lastPlainKey = key;
    this.#lastDrawMs = now;
    this.#stream.write(`${this.#plainLine(now)}\n`);
  }

  /** Draws the final state and ends the line; later updates are ignored. */
  finish(detail?: string): void {
    if (this.#finished) return;
    this.#finished = true;
    const last = detail === undefined ? this.#last : { ...this.#last, detail };
    this.#last = last;
    const now = this.#clock();
    if (this.#tty) this.#stream.write(`\r${this.#fit(this.#ttyLine(now, true))}\u001b[K\n`);
    else this.#stream.write(`${this.#plainLine(now)}\n`);
  }

  #ttyLine(now: number, final = false): string {
    const { done, total, detail } = this.#last;
    const cells = this.#options.widthCells;
    let bar: string;
    let count: string;
    if (total !== undefined && total !== null && total > 0) {
      const fraction = Math.min(1, Math.max(0, done / total));
      const filled = Math.round(fraction * cells);
      bar = '#'.repeat(filled) + '-'.repeat(cells - filled);
      count = `${String(Math.floor(fraction * 100)).padStart(3)}% ${done}/${total}`;
    } else {
      // Unknown total: a block bouncing across the bar says "alive"; full when finished.
      const block = 4;
      const span = cells - block;
      const step = this.#frame % (2 * span);
      const at = step <= span ? step : 2 * span - step;
      bar = final ? '#'.repeat(cells) : ' '.repeat(at) + '='.repeat(block) + ' '.repeat(span - at);
      count = String(done);
    }
    return [`${this.#options.label} [${bar}] ${count}`, detail, elapsedText(now - this.#startedAtMs)]
      .filter((part) => part !== undefined && part !== '')
      .join('  ');
  }

  #plainLine(now: number): string {
    const { done, total, detail } = this.#last;
    const count = total !== undefined && total !== null ? `${done}/${total}` : String(done);
    return [`${this.#options.label}: ${count}`, detail, elapsedText(now - this.#startedAtMs)]
      .filter((part) => part !== undefined && part !== '')
      .join(', ');
  }

  /** A redrawn line must not wrap, or `\r` would only rewind its last row. */
  #fit(line: string): string {
    const columns = (this.#stream as TtyLike).columns ?? 80;
    return line.length < columns ? line : `${line.slice(0, Math.max(0, columns - 2))}…`;
  }
}

function elapsedText(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))}s`;
}
