import { loadSupportedAddon } from '../../src/native-addon.js';

/** What build/Release/fuego_bench_job_reader.node exports (native/bench_job_reader.cc). */
interface JobReaderAddon {
  supported(): boolean;
  start(): void;
  watch(slot: number, fd: number): void;
  unwatch(slot: number): void;
  arm(height: number): void;
  received(): number;
  collect(
    atMs: Float64Array,
    heights: Float64Array,
  ): { readonly lateEarlier: number; readonly otherLines: number; readonly closed: number };
  stop(): void;
}

/** What the reader saw of its miners since `arm`. */
export interface NativeArrivals {
  /** Per slot: wall-clock ms when its job was read (NaN: none yet), and that job's height. */
  readonly atMs: Float64Array;
  readonly heights: Float64Array;
  /** Job notifications below the armed height that arrived after `arm`. */
  readonly lateEarlier: number;
  /** Lines that were not job notifications (an idle miner expects none). */
  readonly otherLines: number;
  /** Sockets the pool closed (end of stream or an error) since the reader started. */
  readonly closed: number;
}

/**
 * The load generator's idle miners, read by one native thread instead of by Node (see
 * native/bench_job_reader.cc for why). A miner handed over here is one whose socket Node no
 * longer reads; it must be unwatched before that socket is closed.
 */
export class NativeJobReader {
  readonly #addon: JobReaderAddon;

  private constructor(addon: JobReaderAddon) {
    this.#addon = addon;
    addon.start();
  }

  /** The process's reader, started, or why there is none (the addon is not built, not Linux). */
  static start(): NativeJobReader | { readonly unavailable: string } {
    const loaded = loadSupportedAddon<JobReaderAddon>(
      'fuego_bench_job_reader.node',
      "the load generator's native job reader",
      import.meta.url,
    );
    if ('unavailable' in loaded) return loaded;
    return new NativeJobReader(loaded.addon);
  }

  /** Reads `fd` for `slot` (the miner's number, below 2^24) from now on. */
  watch(slot: number, fd: number): void {
    this.#addon.watch(slot, fd);
  }

  unwatch(slot: number): void {
    this.#addon.unwatch(slot);
  }

  arm(height: number): void {
    this.#addon.arm(height);
  }

  /** Slots stamped since `arm`. */
  received(): number {
    return this.#addon.received();
  }

  /** Slots 0..slots-1 as they stand; stamps nothing more until the next `arm`. */
  collect(slots: number): NativeArrivals {
    const atMs = new Float64Array(slots);
    const heights = new Float64Array(slots);
    return { atMs, heights, ...this.#addon.collect(atMs, heights) };
  }

  stop(): void {
    this.#addon.stop();
  }
}
