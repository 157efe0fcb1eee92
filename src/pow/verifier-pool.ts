import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compiledSiblingUrl } from '../compiled-module-url.js';
import type { Logger } from '../log/logger.js';
import { FairJobQueue } from './fair-job-queue.js';
import type { PowImplementationChoice } from './load-hasher.js';
import type { PowImplementationName } from './types.js';
import { VerifierPoolError } from './verifier-pool-error.js';
import { type SlotExit, type VerifyJob, WorkerSlot, type WorkerSlotEvents } from './verifier-worker-slot.js';

export { VerifierPoolError, type VerifierPoolErrorCode } from './verifier-pool-error.js';

// Tuning constants (2-core machines to 32-core servers; one native hash takes ~0.2 ms).
/** Jobs per postMessage once work piles up: one message per ~3 ms of native hashing. */
const DEFAULT_MAX_BATCH_SIZE = 16;
/**
 * How long queued jobs may wait to fill a batch for a worker that is already busy. An idle
 * worker always gets work at once, so this only adds latency under load.
 */
const DEFAULT_BATCH_DELAY_MS = 2;
/**
 * Batches a worker may hold: the one it is hashing plus one waiting in its port, so it never
 * idles for the main-thread round trip between batches.
 */
const MAX_BATCHES_PER_WORKER = 2;
/** verify() rejects with QUEUE_FULL once the queue holds this many times maxQueuedJobs. */
const HARD_QUEUE_LIMIT_FACTOR = 2;
/** close() waits this long for in-flight batches and worker exits before terminating. */
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
/** A job whose worker died is retried once on another worker, then rejected. */
const MAX_JOB_RETRIES = 1;
/** Upper bounds (ms) of the hash-time histogram buckets; the last bucket is open. */
const HASH_TIME_BUCKETS_MS = [0.5, 1, 2, 5, 10, 50, 100] as const;

export interface ShareVerifierPoolOptions {
  /** Worker threads; 0 means os.availableParallelism(). */
  readonly workers: number;
  readonly implementation: PowImplementationChoice;
  /**
   * Jobs waiting for a worker, shared fairly between owners: canAcceptWork(owner) turns false once
   * the owner holds its share (this divided by the owners with jobs waiting).
   */
  readonly maxQueuedJobs: number;
  /**
   * The most one owner may have waiting, even alone: a submit storm from one peer is read and
   * queued at most this far before its sockets pause. Defaults to maxQueuedJobs.
   */
  readonly maxQueuedJobsPerOwner?: number;
  readonly maxBatchSize?: number;
  readonly batchDelayMs?: number;
  readonly closeTimeoutMs?: number;
  /** The worker entry; defaults to resolveVerifierWorkerUrl(). Tests point it at fake workers. */
  readonly workerUrl?: URL;
}

export interface ShareVerifierPoolModules {
  readonly logger: Logger;
}

export interface ShareVerifierPoolMetrics {
  /** Jobs waiting in the main thread for a worker. */
  readonly queueDepth: number;
  /** Jobs handed to a worker and not answered yet. */
  readonly inFlight: number;
  /** Workers that passed their self-test and are running. */
  readonly workers: number;
  readonly implementation: PowImplementationName | null;
  readonly hashesTotal: number;
  readonly hashTimeMsAvg: number;
  /** Counts per bucket: `le` is the bucket's upper bound in ms (Infinity for the last). */
  readonly hashTimeMsHistogram: readonly { readonly le: number; readonly count: number }[];
  readonly batchesSent: number;
  readonly workerRestarts: number;
  readonly jobsRetried: number;
}

/** Where the compiled worker entry is (see compiledSiblingUrl: under vitest, the dist/ twin). */
export function resolveVerifierWorkerUrl(moduleUrl: string = import.meta.url): URL {
  return compiledSiblingUrl('verifier.worker.js', moduleUrl);
}

/**
 * Verifies shares (computes cn/upx2 hashes) on worker threads so the event loop never hashes.
 *
 * Fair between peers: each job has an owner (the stratum layer's peer key), waiting jobs are
 * handed out one per owner in turn (FairJobQueue), and cancel(owner) drops an owner's waiting
 * jobs (a banned peer's submits are not hashed). A peer flooding bogus submits thus delays another
 * peer's share by one job per waiting peer, not by its whole backlog.
 *
 * Back-pressure: canAcceptWork(owner) is false once the owner holds its share of `maxQueuedJobs`
 * (all of it while it is the only one waiting, but never more than `maxQueuedJobsPerOwner`); the
 * stratum layer then stops reading that peer's sockets. verify() still queues past that mark, so
 * a share already read is never lost, up to HARD_QUEUE_LIMIT_FACTOR x maxQueuedJobs in all;
 * there, a job of the owner holding the most is refused to make room for one below its share, or
 * else the new job is: QUEUE_FULL, an explicit error, never a silent drop.
 *
 * Batching: an idle worker gets queued jobs at once; a busy one (up to MAX_BATCHES_PER_WORKER
 * batches) gets them in batches of up to maxBatchSize in one postMessage, as one transferred
 * buffer, after at most batchDelayMs. Results are matched to jobs by id.
 *
 * A worker that dies: its in-flight jobs go back to the front of the queue, to be retried once
 * by whichever worker is free (a second loss rejects them with WORKER_CRASHED), and the worker is
 * replaced by a new one, which must pass the self-test too.
 *
 * close(): new verify() calls reject with POOL_CLOSED, queued jobs (not yet handed to a worker)
 * reject with POOL_CLOSED, in-flight jobs finish (up to closeTimeoutMs), then workers exit.
 */
export class ShareVerifierPool {
  readonly #opts: Required<Omit<ShareVerifierPoolOptions, 'workerUrl'>>;
  readonly #logger: Logger;
  readonly #abort = new AbortController();
  readonly #workerUrl: URL;
  readonly #slots: WorkerSlot[] = [];
  readonly #queue = new FairJobQueue<VerifyJob>();
  readonly #loggedWorkerWarnings = new Set<string>();
  #started = false;
  /** Set once start() has succeeded: from then on a worker that fails is replaced, not fatal. */
  #startupDone = false;
  #closing: Promise<void> | null = null;
  #nextJobId = 1;
  #nextBatchId = 1;
  #batchTimer: NodeJS.Timeout | null = null;
  #batchDelayElapsed = false;
  #drained: (() => void) | null = null;
  #stats = {
    hashesTotal: 0,
    hashTimeMsTotal: 0,
    batchesSent: 0,
    workerRestarts: 0,
    jobsRetried: 0,
    histogram: new Array<number>(HASH_TIME_BUCKETS_MS.length + 1).fill(0),
  };

  constructor(opts: ShareVerifierPoolOptions, modules: ShareVerifierPoolModules) {
    if (!Number.isInteger(opts.workers) || opts.workers < 0) {
      throw new RangeError(`workers must be an integer >= 0, got ${opts.workers}`);
    }
    if (!Number.isInteger(opts.maxQueuedJobs) || opts.maxQueuedJobs < 1) {
      throw new RangeError(`maxQueuedJobs must be an integer >= 1, got ${opts.maxQueuedJobs}`);
    }
    const perOwner = opts.maxQueuedJobsPerOwner ?? opts.maxQueuedJobs;
    if (!Number.isInteger(perOwner) || perOwner < 1) {
      throw new RangeError(`maxQueuedJobsPerOwner must be an integer >= 1, got ${perOwner}`);
    }
    this.#opts = Object.freeze({
      workers: opts.workers === 0 ? availableParallelism() : opts.workers,
      implementation: opts.implementation,
      maxQueuedJobs: opts.maxQueuedJobs,
      maxQueuedJobsPerOwner: Math.min(perOwner, opts.maxQueuedJobs),
      maxBatchSize: Math.max(1, opts.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE),
      batchDelayMs: Math.max(0, opts.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS),
      closeTimeoutMs: opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
    });
    this.#workerUrl = opts.workerUrl ?? resolveVerifierWorkerUrl();
    this.#logger = modules.logger;
  }

  /**
   * Starts the workers and waits until each has loaded its hasher and passed the self-test.
   * Rejects with the first worker's error (PowSelfTestError, NATIVE_POW_UNAVAILABLE, ...) after
   * stopping every worker; the pool must then not be used.
   */
  async start(): Promise<void> {
    if (this.#started) throw new Error('ShareVerifierPool.start() called twice');
    this.#started = true;
    if (!existsSync(fileURLToPath(this.#workerUrl))) {
      throw new VerifierPoolError(
        'WORKER_ENTRY_MISSING',
        `share verifier worker not found at ${fileURLToPath(this.#workerUrl)}; run \`npm run build\``,
        { path: fileURLToPath(this.#workerUrl) },
      );
    }
    for (let i = 0; i < this.#opts.workers; i++) this.#slots.push(this.#spawn(i));
    const outcomes = await Promise.allSettled(this.#slots.map((slot) => slot.ready));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) {
      this.#abort.abort();
      await Promise.all(this.#slots.map((slot) => slot.stop(0)));
      throw failure.reason;
    }
    this.#startupDone = true;
    this.#logger.info(
      { workers: this.#slots.length, implementation: this.#slots[0]?.implementation },
      'share verifier pool ready',
    );
  }

  /** False when the stratum layer should stop reading `owner`'s shares until its queue drains. */
  canAcceptWork(owner = ''): boolean {
    return !this.#abort.signal.aborted && this.#queue.countOf(owner) < this.#fairShare(owner);
  }

  /**
   * The jobs `owner` may have waiting: an equal part of maxQueuedJobs among the owners waiting,
   * and never more than maxQueuedJobsPerOwner.
   */
  #fairShare(owner: string): number {
    const others = this.#queue.owners - (this.#queue.countOf(owner) > 0 ? 1 : 0);
    const equalPart = Math.max(1, Math.floor(this.#opts.maxQueuedJobs / (others + 1)));
    return Math.min(equalPart, this.#opts.maxQueuedJobsPerOwner);
  }

  /** The 32-byte cn/upx2 hash of `hashingBlob`, computed on a worker thread, for `owner`. */
  verify(hashingBlob: Uint8Array, owner = ''): Promise<Uint8Array> {
    if (this.#abort.signal.aborted) {
      return Promise.reject(new VerifierPoolError('POOL_CLOSED', 'share verifier pool is closed'));
    }
    if (!this.#started) {
      return Promise.reject(new VerifierPoolError('POOL_NOT_STARTED', 'share verifier pool not started'));
    }
    const hardLimit = HARD_QUEUE_LIMIT_FACTOR * this.#opts.maxQueuedJobs;
    if (this.#queue.length >= hardLimit) {
      const full = () =>
        new VerifierPoolError('QUEUE_FULL', 'share verifier queue is full', {
          queueDepth: this.#queue.length,
          hardLimit,
        });
      const evicted = this.#queue.evictFromLargest(this.#queue.countOf(owner) + 1);
      if (evicted === undefined) return Promise.reject(full());
      evicted.reject(full());
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      // Copied: the caller may reuse its buffer before a worker gets to this job.
      const input = hashingBlob.slice();
      this.#queue.push({ id: this.#nextJobId++, owner, input, resolve, reject, retries: 0 });
      this.#dispatch();
    });
  }

  /**
   * Rejects every job of `owner` still waiting for a worker with CANCELLED (jobs a worker already
   * holds finish). For a banned peer: the rest of its burst is not hashed. Returns how many.
   */
  cancel(owner: string): number {
    const dropped = this.#queue.removeOwner(owner);
    if (dropped.length === 0) return 0;
    // One error for the whole backlog (a banned peer's may hold hundreds of jobs): each would
    // otherwise capture a stack trace, all in the turn that bans the peer.
    const cancelled = new VerifierPoolError('CANCELLED', 'job cancelled before it was hashed', { owner });
    for (const job of dropped) job.reject(cancelled);
    return dropped.length;
  }

  metrics(): ShareVerifierPoolMetrics {
    let inFlight = 0;
    let workers = 0;
    for (const slot of this.#slots) {
      inFlight += slot.inFlight;
      if (slot.state.kind === 'running') workers++;
    }
    const { hashesTotal, hashTimeMsTotal, histogram } = this.#stats;
    return {
      queueDepth: this.#queue.length,
      inFlight,
      workers,
      implementation: this.#slots.find((slot) => slot.implementation)?.implementation ?? null,
      hashesTotal,
      hashTimeMsAvg: hashesTotal === 0 ? 0 : hashTimeMsTotal / hashesTotal,
      hashTimeMsHistogram: histogram.map((count, i) => ({
        le: HASH_TIME_BUCKETS_MS[i] ?? Number.POSITIVE_INFINITY,
        count,
      })),
      batchesSent: this.#stats.batchesSent,
      workerRestarts: this.#stats.workerRestarts,
      jobsRetried: this.#stats.jobsRetried,
    };
  }

  /**
   * Ordered shutdown: stop accepting (POOL_CLOSED), reject the queued jobs with POOL_CLOSED, let
   * in-flight jobs finish (jobs still unanswered after closeTimeoutMs reject with POOL_CLOSED),
   * then ask each worker to exit and terminate any that does not. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#abort.abort();
    this.#clearBatchTimer();
    const closed = () =>
      new VerifierPoolError('POOL_CLOSED', 'share verifier pool closed before the job ran');
    for (const job of this.#queue.clear()) job.reject(closed());
    if (this.#inFlightCount() > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#opts.closeTimeoutMs);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#drained = null;
    }
    for (const slot of this.#slots) slot.rejectInFlight(closed);
    await Promise.all(this.#slots.map((slot) => slot.stop(this.#opts.closeTimeoutMs)));
    this.#logger.info('share verifier pool closed');
  }

  #spawn(index: number): WorkerSlot {
    return new WorkerSlot(index, this.#workerUrl, this.#opts.implementation, this.#slotEvents, this.#logger);
  }

  readonly #slotEvents: WorkerSlotEvents = {
    ready: () => this.#dispatch(),
    batchDone: () => {
      if (this.#drained && this.#inFlightCount() === 0) this.#drained();
      this.#dispatch();
    },
    hashed: (ms) => this.#recordHashTime(ms),
    warning: (slot, obj, msg) => {
      if (this.#loggedWorkerWarnings.has(msg)) return;
      this.#loggedWorkerWarnings.add(msg);
      this.#logger.warn({ ...obj, workerIndex: slot.index }, msg);
    },
    exited: (slot, exit) => this.#onExited(slot, exit),
  };

  #onExited(slot: WorkerSlot, exit: SlotExit): void {
    switch (exit.kind) {
      case 'stopped':
        return;
      case 'start-failed':
        // Before start() has succeeded it reports the failure itself.
        if (!this.#startupDone) return;
        this.#removeSlot(slot);
        this.#logger.error(
          { err: exit.error, workerIndex: slot.index },
          'replacement worker could not start',
        );
        this.#rejectQueueIfNoWorkers();
        return;
      case 'crashed':
        this.#replaceCrashed(slot, exit.exitCode, exit.orphans);
        return;
    }
  }

  /** A running worker died: its jobs are retried elsewhere (once), then it is replaced. */
  #replaceCrashed(slot: WorkerSlot, exitCode: number, orphans: VerifyJob[]): void {
    this.#logger.error(
      { workerIndex: slot.index, exitCode, inFlight: orphans.length },
      'share verifier worker died; replacing it',
    );
    const retry: VerifyJob[] = [];
    for (const job of orphans) {
      if (job.retries < MAX_JOB_RETRIES) {
        job.retries++;
        this.#stats.jobsRetried++;
        retry.push(job);
      } else {
        job.reject(
          new VerifierPoolError('WORKER_CRASHED', 'share verifier worker died while hashing this job', {
            workerIndex: slot.index,
            exitCode,
          }),
        );
      }
    }
    this.#queue.pushFront(retry.sort((a, b) => a.id - b.id));
    this.#removeSlot(slot);
    if (this.#drained && this.#inFlightCount() === 0) this.#drained();
    if (this.#abort.signal.aborted) {
      for (const job of this.#queue.clear()) {
        job.reject(new VerifierPoolError('POOL_CLOSED', 'share verifier pool closed before the job ran'));
      }
      return;
    }
    this.#stats.workerRestarts++;
    this.#slots.push(this.#spawn(slot.index));
    this.#dispatch();
  }

  #removeSlot(slot: WorkerSlot): void {
    const position = this.#slots.indexOf(slot);
    if (position >= 0) this.#slots.splice(position, 1);
  }

  #rejectQueueIfNoWorkers(): void {
    // A failed worker counts until its exit is handled, which calls this again.
    if (this.#slots.some((s) => s.state.kind !== 'stopping' && s.state.kind !== 'exited')) return;
    for (const job of this.#queue.clear()) {
      job.reject(new VerifierPoolError('NO_WORKERS', 'no share verifier worker is running'));
    }
  }

  #inFlightCount(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.inFlight, 0);
  }

  #recordHashTime(ms: number): void {
    this.#stats.hashesTotal++;
    this.#stats.hashTimeMsTotal += ms;
    let bucket = HASH_TIME_BUCKETS_MS.findIndex((le) => ms <= le);
    if (bucket < 0) bucket = HASH_TIME_BUCKETS_MS.length;
    this.#stats.histogram[bucket] = (this.#stats.histogram[bucket] ?? 0) + 1;
  }

  /** Hands queued jobs to workers: idle ones at once, busy ones in full (or overdue) batches. */
  #dispatch(): void {
    while (this.#queue.length > 0) {
      let target: WorkerSlot | undefined;
      let targetBatches = 0;
      let acceptors = 0;
      for (const slot of this.#slots) {
        const batches = slot.batches;
        if (batches === undefined || batches >= MAX_BATCHES_PER_WORKER) continue;
        acceptors++;
        if (!target || batches < targetBatches) {
          target = slot;
          targetBatches = batches;
        }
      }
      if (!target) break;
      const batchFull = this.#queue.length >= this.#opts.maxBatchSize;
      if (targetBatches > 0 && !batchFull && !this.#batchDelayElapsed) {
        this.#armBatchTimer();
        return;
      }
      // Share a short queue among the workers that can take it, so a slow (TypeScript) hasher
      // does not leave one worker with every job while another idles.
      const size = Math.min(this.#opts.maxBatchSize, Math.ceil(this.#queue.length / acceptors));
      this.#stats.batchesSent++;
      target.send(this.#queue.take(size), this.#nextBatchId++);
    }
    this.#batchDelayElapsed = false;
    if (this.#queue.length === 0) this.#clearBatchTimer();
  }

  #armBatchTimer(): void {
    if (this.#batchTimer) return;
    this.#batchTimer = setTimeout(() => {
      this.#batchTimer = null;
      this.#batchDelayElapsed = true;
      this.#dispatch();
    }, this.#opts.batchDelayMs);
  }

  #clearBatchTimer(): void {
    if (!this.#batchTimer) return;
    clearTimeout(this.#batchTimer);
    this.#batchTimer = null;
  }
}
