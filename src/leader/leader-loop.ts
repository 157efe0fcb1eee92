import type { Logger } from '../log/logger.js';
import type { HeldPayout } from '../model/payouts/payout-watch.js';
import type { PoolEventBus } from '../pool/events.js';
import type { PayoutRunSummary, UpkeepReport } from '../pool/payouts/payout-reports.js';
import { runPayoutPass } from './payouts/payout-pass.js';
import type { PayoutRunner } from './payouts/payout-runner.js';
import { unminedEvent } from './payouts/unmined-notice.js';
import type { WalletUpkeep } from './payouts/wallet-upkeep.js';
import { UNANNOUNCED_WATCH_INTERVAL_MS, type UnannouncedBlocksWatch } from './unannounced-blocks.js';
import { NO_UNLOCK_RUN_YET, nextUnlockStatus, type UnlockStatus } from './unlock-status.js';
import type { Unlocker, UnlockRunSummary } from './unlocker/trusted-chain-unlocker.js';
import type { PromotedRefusal } from './unlocker/unlock-run-listener.js';
import { WORKER_OFFLINE_WATCH_INTERVAL_MS, type WorkerOfflineWatch } from './worker-offline-watch.js';

export interface LeaderLoopOptions {
  readonly unlockIntervalMs: number;
  /** null: payouts are left to `fuego-pool payout` (cron). */
  readonly payoutIntervalMs: number | null;
  /** How often `workerWatch` runs (default WORKER_OFFLINE_WATCH_INTERVAL_MS). */
  readonly workerWatchIntervalMs?: number;
}

export interface LeaderLoopModules {
  readonly unlocker: Unlocker;
  readonly payouts: Pick<PayoutRunner, 'runOnce'>;
  /** The wallet's fusion upkeep around each pass; absent: passes are the runner's alone. */
  readonly upkeep?: Pick<WalletUpkeep, 'runOnce' | 'hasRequest'>;
  /** Holds the due miners of a pass that waits for the upkeep. */
  readonly holdPass?: (reason: string) => Promise<readonly HeldPayout[]>;
  /** Publishes `worker-offline` (worker-offline-watch.ts); absent: no notification target lists it. */
  readonly workerWatch?: Pick<WorkerOfflineWatch, 'runOnce'>;
  /**
   * Tells the blocks whose finder never published `block-found` (unannounced-blocks.ts), every
   * UNANNOUNCED_WATCH_INTERVAL_MS or unlock interval, whichever is shorter, and announces (and
   * clears the mark of) each refused block the unlocker promotes; absent: the unlocker's
   * promotions are only published.
   */
  readonly announcements?: Pick<UnannouncedBlocksWatch, 'runOnce' | 'announce'>;
  readonly events: PoolEventBus;
  readonly logger: Logger;
}

/**
 * The leader's periodic money work: the unlocker (confirm or orphan candidates, credit balances)
 * and the payout pass (the wallet's upkeep, then the payout runner: payout-pass.ts), each on its
 * own interval, never overlapping itself; on every `block-found` of a pool block, the unlocker's
 * window fixer, so the block's PPLNS window is fixed (and the share stream may be trimmed again)
 * within moments of the find rather than at the next unlock tick; and, when a notification target
 * wants it, the worker-offline watch; and the watch of blocks whose `block-found` their finder
 * never published (it died between its Redis write and the publish). Publishes what it decided on
 * the event bus. Errors are logged and retried on the next tick: the runners and the fixer are
 * idempotent and recover from their own half-done work.
 */
export class LeaderLoop {
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #running = new Set<Promise<unknown>>();
  #unsubscribe: (() => void) | null = null;
  #stopped = false;
  /** The last payout pass waited for the wallet's fusions: look again every unlock interval. */
  #waitingForUpkeep = false;
  #unlockStatus: UnlockStatus = NO_UNLOCK_RUN_YET;
  readonly #options: LeaderLoopOptions;
  readonly #modules: LeaderLoopModules;

  constructor(options: LeaderLoopOptions, modules: LeaderLoopModules) {
    this.#options = options;
    this.#modules = modules;
  }

  start(): void {
    this.#every(this.#options.unlockIntervalMs, 'unlocker', () => this.unlockOnce());
    if (this.#options.payoutIntervalMs !== null) {
      const payTick = this.#every(this.#options.payoutIntervalMs, 'payouts', async () => {
        await this.payOnce();
      });
      // Pays within an unlock interval of the fusions becoming spendable, not a payout interval later.
      const recheck = setInterval(() => {
        if (this.#waitingForUpkeep) payTick();
      }, this.#options.unlockIntervalMs);
      recheck.unref?.();
      this.#timers.push(recheck);
    }
    const watch = this.#modules.workerWatch;
    if (watch !== undefined) {
      const intervalMs = this.#options.workerWatchIntervalMs ?? WORKER_OFFLINE_WATCH_INTERVAL_MS;
      this.#every(intervalMs, 'worker-offline-watch', () => watch.runOnce());
    }
    const announcements = this.#modules.announcements;
    if (announcements !== undefined) {
      const intervalMs = Math.min(UNANNOUNCED_WATCH_INTERVAL_MS, this.#options.unlockIntervalMs);
      this.#every(intervalMs, 'unannounced-blocks', async () => {
        await announcements.runOnce();
      });
    }
    this.#unsubscribe = this.#modules.events.subscribe('block-found', (found) => {
      if (!found.solo) this.fixWindowsNow();
    });
  }

  /** Runs the window fixer now (tracked, so stop() waits for it); failures are logged. */
  fixWindowsNow(): void {
    if (this.#stopped) return;
    this.#track(this.#modules.unlocker.windows.fixPending(), 'window-fixer');
  }

  /** Tracks work started outside a tick, so stop() waits for it; failures are logged. */
  #track(work: Promise<unknown>, task: string): void {
    const run = work
      .catch((error: unknown) => this.#modules.logger.error({ err: error, task }, 'leader task failed'))
      .finally(() => this.#running.delete(run));
    this.#running.add(run);
  }

  /** A refused block the unlocker promoted: its `block-found` now, its mark cleared after. */
  #promoted(block: PromotedRefusal): void {
    const { announcements, events } = this.#modules;
    if (announcements === undefined) {
      events.publish('block-found', { ...block, foundAfterRefusal: true });
      return;
    }
    const told = { ...block, foundAfterRefusal: true, markedAtMs: Date.now() };
    this.#track(announcements.announce(told), 'unannounced-blocks');
  }

  /** Stops the timers and waits for a run in progress (a payout must finish recording its result). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    for (const timer of this.#timers) clearInterval(timer);
    await Promise.allSettled([...this.#running]);
    this.#modules.unlocker.close?.();
  }

  /**
   * One unlock run, published: each block orphaned after credit its reorg watch notes restored as
   * `block-orphan-restored` (and a settled one's restore it undoes as `block-orphan-restore-undone`),
   * each orphaned block its orphan watch finds back on the chain and cannot credit as
   * `block-orphan-back-uncredited`,
   * each refused block it promotes as `block-found` the moment it is
   * promoted (found on the chain after all; the stratum side announced none of them, as its
   * diagnosis did not promote them), then what it decided, so a block promoted and confirmed in
   * one run is found before it is confirmed.
   */
  async unlockOnce(): Promise<void> {
    let result: UnlockRunSummary;
    try {
      result = await this.#modules.unlocker.runOnce({
        onPromoted: (block) => this.#promoted(block),
        onRestored: (block) =>
          this.#modules.events.publish('block-orphan-restored', { ...block, timestampMs: Date.now() }),
        onReorphaned: (block) =>
          this.#modules.events.publish('block-orphan-restore-undone', { ...block, timestampMs: Date.now() }),
        onBackUncredited: (block) =>
          this.#modules.events.publish('block-orphan-back-uncredited', { ...block, timestampMs: Date.now() }),
      });
    } catch (error) {
      this.#unlockStatus = nextUnlockStatus(this.#unlockStatus, Date.now(), { error });
      throw error;
    }
    this.#unlockStatus = nextUnlockStatus(this.#unlockStatus, Date.now(), { summary: result });
    for (const decision of result.decisions) {
      if (decision.outcome === 'confirmed') {
        this.#modules.events.publish('block-confirmed', {
          height: decision.height,
          hash: decision.hash,
          rewardAtomic: decision.rewardAtomic ?? 0n,
        });
      } else if (decision.outcome === 'orphaned') {
        this.#modules.events.publish('block-orphaned', { height: decision.height, hash: decision.hash });
      } else if (decision.outcome === 'orphaned-after-credit') {
        this.#modules.events.publish('block-orphaned-after-credit', {
          height: decision.height,
          hash: decision.hash,
          rewardAtomic: decision.rewardAtomic ?? 0n,
        });
      }
    }
  }

  /**
   * One payout pass; publishes what it sent or rolled back, each sent batch it marked
   * wallet-missing and each it told not mined hours after its send (each once per batch), and
   * returns the runner's summary.
   */
  async payOnce(): Promise<PayoutRunSummary> {
    const { payouts, upkeep, holdPass, logger } = this.#modules;
    const summary = await runPayoutPass({
      payouts,
      logger,
      ...(upkeep ? { upkeep } : {}),
      ...(holdPass ? { holdPass } : {}),
    });
    this.#waitingForUpkeep = summary.skipped === 'wallet-upkeep';
    for (const batch of [...summary.recovered, ...summary.batches]) {
      if (batch.state === 'sent' && batch.txHash !== null) {
        this.#modules.events.publish('payment-sent', {
          batchId: batch.batchId,
          transactionHash: batch.txHash,
          recipients: batch.recipients,
          amountAtomic: batch.amountAtomic,
          feeAtomic: batch.networkFeeAtomic,
          timestampMs: Date.now(),
        });
      } else if (batch.state === 'failed') {
        this.#modules.events.publish('payment-failed', {
          batchId: batch.batchId,
          recipients: batch.recipients,
          amountAtomic: batch.amountAtomic,
          reason: batch.note,
          timestampMs: Date.now(),
        });
      }
    }
    for (const missing of summary.walletMissing) {
      this.#modules.events.publish('payout-unknown-to-wallet', {
        batchId: missing.batchId,
        transactionHash: missing.txHash,
        recipients: missing.recipients,
        amountAtomic: missing.amountAtomic,
        sentAtMs: missing.sentAtMs,
        timestampMs: Date.now(),
      });
    }
    for (const unmined of summary.unmined) {
      this.#modules.events.publish('payout-unmined', unminedEvent(unmined, Date.now()));
    }
    // Waiting for fusions is rechecked every unlock interval: the upkeep and the held list log
    // what changes, so this line stays quiet.
    if (summary.skipped === 'wallet-upkeep') {
      this.#modules.logger.debug({ skipped: summary.skipped, detail: summary.detail }, 'payouts skipped');
    } else if (summary.skipped !== null) {
      this.#modules.logger.warn({ skipped: summary.skipped, detail: summary.detail }, 'payouts skipped');
    }
    return summary;
  }

  /** What the unlock runs of this term did last, for `fuego-pool status`. */
  unlockStatus(): UnlockStatus {
    return this.#unlockStatus;
  }

  /** The operator's `fuego-pool wallet optimize`: joins whatever the wallet has ready now. */
  async optimizeWallet(): Promise<UpkeepReport> {
    if (this.#modules.upkeep === undefined) throw new Error('this leader has no wallet upkeep');
    return this.#modules.upkeep.runOnce({ operator: true });
  }

  /** Runs `run` every `intervalMs` and at once, never overlapping itself; returns the guarded tick. */
  #every(intervalMs: number, name: string, run: () => Promise<void>): () => void {
    let busy = false;
    const tick = () => {
      if (busy || this.#stopped) return;
      busy = true;
      const runOnce = run()
        .catch((error: unknown) =>
          this.#modules.logger.error({ err: error, task: name }, 'leader task failed'),
        )
        .finally(() => {
          busy = false;
          this.#running.delete(runOnce);
        });
      this.#running.add(runOnce);
    };
    const timer = setInterval(tick, intervalMs);
    timer.unref?.();
    this.#timers.push(timer);
    setImmediate(tick);
    return tick;
  }
}
