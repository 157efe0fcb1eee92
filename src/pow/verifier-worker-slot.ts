import { Worker } from 'node:worker_threads';
import { FuegoPoolError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { PowImplementationChoice } from './load-hasher.js';
import { NativePowUnavailableError } from './native.js';
import { PowSelfTestError } from './self-test.js';
import type { PowImplementationName } from './types.js';
import {
  HASH_BYTES,
  type HashResultsMessage,
  type MainToWorkerMessage,
  packInputs,
  type SerializedError,
  type VerifierWorkerData,
  type WorkerToMainMessage,
} from './verifier-messages.js';
import { VerifierPoolError } from './verifier-pool-error.js';

/** One hash to compute: the pool's promise for it, and how often a dead worker lost it. */
export interface VerifyJob {
  readonly id: number;
  /** Whose share it is (see FairJobQueue). */
  readonly owner: string;
  readonly input: Uint8Array;
  readonly resolve: (hash: Uint8Array) => void;
  readonly reject: (error: Error) => void;
  retries: number;
}

/**
 * A worker slot's state. Transitions (any other event is ignored):
 *
 *   starting ──ready──> running ──stop()──> stopping ──exit──> exited
 *   starting ──init-failed | uncaught error──> failed ──exit──> exited
 *   starting | failed ──stop()──> stopping (terminated)
 *   starting | running ──exit──> exited (a crash)
 *
 * - starting: loading its hasher and running the self-test.
 * - running: took the self-test; hashes `batches` batches (idle at 0), the jobs in `inFlight`.
 * - failed: will never run (the first reason kept); its thread is about to exit.
 * - stopping: asked to exit (or being terminated); it holds no jobs.
 * - exited: the thread is gone. `implementation` stays readable for the metrics.
 */
export type SlotState =
  | { readonly kind: 'starting' }
  | Running
  | { readonly kind: 'failed'; readonly error: Error }
  | { readonly kind: 'stopping'; readonly implementation: PowImplementationName | null }
  | { readonly kind: 'exited'; readonly implementation: PowImplementationName | null };

interface Running {
  readonly kind: 'running';
  readonly implementation: PowImplementationName;
  readonly inFlight: Map<number, VerifyJob>;
  batches: number;
}

/** How a slot's thread ended, as its pool must handle it. */
export type SlotExit =
  /** Asked to (stop()). */
  | { readonly kind: 'stopped' }
  /** Never got to run: init-failed, an uncaught error, or an exit while loading. */
  | { readonly kind: 'start-failed'; readonly error: Error }
  /** Died while running: `orphans` are the jobs it held, oldest first. */
  | { readonly kind: 'crashed'; readonly exitCode: number; readonly orphans: VerifyJob[] };

/** What a slot tells its pool. */
export interface WorkerSlotEvents {
  /** The slot passed its self-test and takes batches. */
  ready(slot: WorkerSlot): void;
  /** A batch came back; its jobs are settled already. */
  batchDone(slot: WorkerSlot): void;
  /** Every hashed job's time, for the pool's histogram. */
  hashed(ms: number): void;
  /** A warning the worker forwards (e.g. the TypeScript fallback); the same one comes from every worker. */
  warning(slot: WorkerSlot, obj: Record<string, unknown>, msg: string): void;
  exited(slot: WorkerSlot, exit: SlotExit): void;
}

/** Gives a worker's error back its type where the pool's callers test for one. */
function reviveWorkerError(error: SerializedError): Error {
  if (error.code === 'POW_SELF_TEST_FAILED' && error.data) {
    return new PowSelfTestError(error.data as ConstructorParameters<typeof PowSelfTestError>[0]);
  }
  if (error.code === 'NATIVE_POW_UNAVAILABLE') {
    return new NativePowUnavailableError(error.message, { path: String(error.data?.['path'] ?? '') });
  }
  if (error.code) return new FuegoPoolError(error.code, error.message, { ...error.data });
  return new Error(error.message);
}

/** One verifier worker thread and the jobs it holds, as an explicit state (SlotState). */
export class WorkerSlot {
  state: SlotState = { kind: 'starting' };
  /** Settles once: fulfilled when the worker is ready, rejected with the first reason it cannot be. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  readonly #worker: Worker;
  #settleReady!: (error?: Error) => void;
  readonly #events: WorkerSlotEvents;
  readonly #logger: Logger;

  constructor(
    readonly index: number,
    workerUrl: URL,
    implementation: PowImplementationChoice,
    events: WorkerSlotEvents,
    logger: Logger,
  ) {
    this.#events = events;
    this.#logger = logger;
    const workerData: VerifierWorkerData = { implementation, workerIndex: index };
    this.#worker = new Worker(workerUrl, { workerData });
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settleReady = (error) => (error ? reject(error) : resolve());
    });
    // start() reports a first-generation failure; the pool logs a replacement's. Never unhandled.
    this.ready.catch(() => {});
    this.exited = new Promise<void>((resolve) => {
      this.#worker.on('exit', (exitCode) => {
        this.#onExit(exitCode);
        resolve();
      });
    });
    this.#worker.on('message', (message: WorkerToMainMessage) => this.#onMessage(message));
    this.#worker.on('error', (error) => {
      this.#logger.error({ err: error, workerIndex: index }, 'share verifier worker threw');
      this.#fail(error);
    });
  }

  /** What it hashes with, once it said so. */
  get implementation(): PowImplementationName | null {
    return this.state.kind === 'starting' || this.state.kind === 'failed' ? null : this.state.implementation;
  }

  /** Jobs handed to it and not answered yet. */
  get inFlight(): number {
    return this.state.kind === 'running' ? this.state.inFlight.size : 0;
  }

  /** Batches it is hashing or holds in its port; undefined unless it is running. */
  get batches(): number | undefined {
    return this.state.kind === 'running' ? this.state.batches : undefined;
  }

  /** Hands the (running) worker a batch, packed into one transferred buffer. */
  send(jobs: readonly VerifyJob[], batchId: number): void {
    const running = this.state;
    if (running.kind !== 'running') throw new Error(`worker ${this.index} is ${running.kind}, not running`);
    const { buffer, lengths } = packInputs(jobs.map((job) => job.input));
    for (const job of jobs) running.inFlight.set(job.id, job);
    running.batches++;
    this.#post(
      { type: 'hash', batchId, jobIds: jobs.map((job) => job.id), inputLengths: lengths, inputs: buffer },
      [buffer],
    );
  }

  /** Rejects every job it holds (close() ran out of time); the worker may still answer them. */
  rejectInFlight(error: () => Error): void {
    if (this.state.kind !== 'running') return;
    for (const job of this.state.inFlight.values()) job.reject(error());
    this.state.inFlight.clear();
  }

  /** Asks the worker to exit (terminating it if it is not running or does not exit within graceMs). */
  async stop(graceMs: number): Promise<void> {
    const from = this.state;
    if (from.kind === 'exited') return;
    this.state = { kind: 'stopping', implementation: this.implementation };
    if (from.kind === 'running' && graceMs > 0) {
      this.#post({ type: 'close' });
      const timer = setTimeout(() => void this.#worker.terminate(), graceMs);
      await this.exited;
      clearTimeout(timer);
    } else {
      await this.#worker.terminate();
      await this.exited;
    }
  }

  #onMessage(message: WorkerToMainMessage): void {
    switch (message.type) {
      case 'ready':
        if (this.state.kind !== 'starting') return;
        this.state = {
          kind: 'running',
          implementation: message.implementation,
          inFlight: new Map(),
          batches: 0,
        };
        this.#settleReady();
        this.#events.ready(this);
        break;
      case 'init-failed':
        this.#fail(reviveWorkerError(message.error));
        break;
      case 'log':
        this.#events.warning(this, message.obj, message.msg);
        break;
      case 'results':
        if (this.state.kind === 'running') this.#onResults(this.state, message);
        break;
    }
  }

  /** starting → failed; the first reason is the one start() reports. */
  #fail(error: Error): void {
    if (this.state.kind !== 'starting') return;
    this.state = { kind: 'failed', error };
    this.#settleReady(error);
  }

  #onResults(running: Running, message: HashResultsMessage): void {
    running.batches--;
    const hashes = new Uint8Array(message.hashes);
    const failed = new Map(message.failures.map((f) => [f.jobId, f.error]));
    message.jobIds.forEach((jobId, i) => {
      const job = running.inFlight.get(jobId);
      if (!job) return; // already rejected by close() after its timeout
      running.inFlight.delete(jobId);
      const failure = failed.get(jobId);
      if (failure) {
        job.reject(
          new VerifierPoolError('HASH_FAILED', `hashing failed: ${failure.message}`, { error: failure }),
        );
        return;
      }
      this.#events.hashed(message.hashTimeMs[i] ?? 0);
      // A view into the batch's buffer, not a copy: one allocation less per share.
      job.resolve(hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES));
    });
    this.#events.batchDone(this);
  }

  #onExit(exitCode: number): void {
    const from = this.state;
    this.state = { kind: 'exited', implementation: this.implementation };
    switch (from.kind) {
      case 'stopping':
        this.#events.exited(this, { kind: 'stopped' });
        return;
      case 'failed':
        this.#events.exited(this, { kind: 'start-failed', error: from.error });
        return;
      case 'starting': {
        // After init-failed the worker closes its port and exits; otherwise it crashed while loading.
        const error = new VerifierPoolError('WORKER_CRASHED', 'share verifier worker exited while starting', {
          workerIndex: this.index,
          exitCode,
        });
        this.#settleReady(error);
        this.#events.exited(this, { kind: 'start-failed', error });
        return;
      }
      case 'running':
        this.#events.exited(this, { kind: 'crashed', exitCode, orphans: [...from.inFlight.values()] });
        return;
    }
  }

  #post(message: MainToWorkerMessage, transfer: ArrayBuffer[] = []): void {
    this.#worker.postMessage(message, transfer);
  }
}
