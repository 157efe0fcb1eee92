import type { Logger } from '../log/logger.js';
import type { OfflineWorkerSource } from '../model/offline-workers.js';
import type { PoolEventBus } from '../pool/events.js';

/** How often the leader looks for workers that went offline: a notification is at most this late. */
export const WORKER_OFFLINE_WATCH_INTERVAL_MS = 30_000;
/**
 * Notifications per scan at most. More workers going offline within one interval is an outage of
 * the pool or of a farm's network, which a stream of per-worker messages would only bury; the
 * rest are counted in a warning.
 */
export const MAX_OFFLINE_WORKERS_PER_SCAN = 100;

export interface WorkerOfflineWatchOptions {
  /** `api.workerOfflineMs`: the API's `offline` and this event agree. */
  readonly offlineMs: number;
  readonly maxWorkersPerScan?: number;
}

export interface WorkerOfflineWatchModules {
  readonly scanner: OfflineWorkerSource;
  readonly events: Pick<PoolEventBus, 'publish'>;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/**
 * The leader's worker-offline watch: each run publishes `worker-offline` for every worker that
 * passed `offlineMs` without a share since the previous run (WorkerOfflineScanner finds each
 * transition once). Debounced by the offline time itself: a pause shorter than it (XMRig mining
 * one minute in a hundred for its authors) is no transition. The leader runs it only when a
 * notification target (webhook, Discord, Telegram) lists the event; chat targets then debounce a
 * burst of them into one message.
 */
export class WorkerOfflineWatch {
  readonly #options: Required<WorkerOfflineWatchOptions>;
  readonly #modules: WorkerOfflineWatchModules;

  constructor(options: WorkerOfflineWatchOptions, modules: WorkerOfflineWatchModules) {
    this.#options = { maxWorkersPerScan: MAX_OFFLINE_WORKERS_PER_SCAN, ...options };
    this.#modules = modules;
  }

  /**
   * Publishes only what the scanner returned, i.e. after its fenced move of the mark succeeded: a
   * scan of a process that lost the lease publishes nothing and leaves the span to the next
   * leader. At most once, not exactly once: if this process dies (or its lease runs out) between
   * that write and the publish, those workers are reported by nobody.
   */
  async runOnce(): Promise<void> {
    const { scanner, events, logger } = this.#modules;
    const { offlineMs, maxWorkersPerScan } = this.#options;
    const scan = await scanner.scan((this.#modules.clock ?? Date.now)(), offlineMs, maxWorkersPerScan);
    for (const worker of scan.workers) {
      events.publish('worker-offline', { ...worker, offlineAfterMs: offlineMs });
    }
    if (scan.skipped > 0) {
      logger.warn(
        { notified: scan.workers.length, skipped: scan.skipped },
        'many workers went offline at once: the rest are not notified one by one',
      );
    }
  }
}
