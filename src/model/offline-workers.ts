/**
 * The port through which the leader's worker-offline watch learns which workers stopped
 * (store/hashrate/worker-offline-scan.ts implements it on the hashrate ZSETs).
 */

export interface OfflineWorker {
  readonly address: string;
  readonly worker: string;
  readonly lastShareMs: number;
}

export interface OfflineScan {
  /** Workers that went offline since the previous scan, oldest last share first. */
  readonly workers: readonly OfflineWorker[];
  /** Further workers that went offline in the same span, beyond `maxWorkers` (not returned). */
  readonly skipped: number;
}

export interface OfflineWorkerSource {
  /**
   * Workers whose last share became `offlineMs` old since the previous scan, each once. Returned
   * only once the scan is recorded as done (fenced by the leader's lease), so the caller publishes
   * after that record; none when this process no longer leads or a later scan got there first.
   */
  scan(nowMs: number, offlineMs: number, maxWorkers: number): Promise<OfflineScan>;
}
