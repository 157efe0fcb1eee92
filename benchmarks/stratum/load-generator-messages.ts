/** IPC between the connections benchmark at scale (connections-scale.ts) and its load generators. */

/** CPU seconds (user + system) of a load generator since it started, and its wake-ups. */
export interface CpuReport {
  readonly cpuSeconds: number;
  /** Voluntary context switches of all its threads since it started: how often it slept and was woken. */
  readonly wakeUps: number;
}

export type LoadCommand =
  /** Log in miners until this process holds `total` (miner names and source addresses by index). */
  | {
      readonly type: 'connect';
      readonly port: number;
      readonly address: string;
      readonly total: number;
      readonly sources: readonly string[];
    }
  /**
   * Forget the last push and stamp each miner's next job of at least `height` (the height the
   * coming tip brings); older jobs that arrive meanwhile (a previous push's last ones on a busy
   * host) are only counted.
   */
  | { readonly type: 'arm'; readonly height: number }
  /** Wait (at most `timeoutMs`) until every miner got its next job, then report. */
  | { readonly type: 'collect'; readonly height: number; readonly timeoutMs: number }
  /** Hash `perMiner` difficulty-1 shares for each of the first `miners` miners, on their current jobs. */
  | { readonly type: 'prepare-shares'; readonly miners: number; readonly perMiner: number }
  /** Send the prepared shares at once and report when every one is answered. */
  | { readonly type: 'burst' }
  /** Close every miner's connection but the first `keep` (those that send the shares). */
  | { readonly type: 'drop'; readonly keep: number }
  | { readonly type: 'stop' };

export type LoadEvent =
  | ({
      readonly type: 'connected';
      readonly miners: number;
      /** Of them, those the generator's native reader reads (native-job-reader.ts); the rest Node reads. */
      readonly readNatively: number;
      readonly seconds: number;
    } & CpuReport)
  | ({ readonly type: 'armed' } & CpuReport)
  | ({
      readonly type: 'arrivals';
      /** Wall-clock ms (performance.timeOrigin + now) when each received job's chunk was read. */
      readonly atMs: readonly number[];
      readonly missing: number;
      /** Jobs of a later height than the one awaited (should be 0). */
      readonly wrongHeight: number;
      /** Jobs of an earlier height that arrived after `arm`: a previous push's stragglers. */
      readonly lateEarlier: number;
    } & CpuReport)
  | ({ readonly type: 'prepared'; readonly shares: number } & CpuReport)
  | ({
      readonly type: 'burst';
      readonly accepted: number;
      /** Replies other than OK, by error message. */
      readonly refused: Readonly<Record<string, number>>;
      /** Wall-clock ms of the first submit written and of the last reply read. */
      readonly startMs: number;
      readonly endMs: number;
    } & CpuReport)
  | ({ readonly type: 'dropped'; readonly miners: number } & CpuReport)
  | { readonly type: 'failed'; readonly message: string };
