import type { Logger } from '../log/logger.js';
import type { MinerSession } from './miner-session.js';
import type { TemplateChange } from './template-source.js';

export interface TemplateBroadcastOptions {
  /** At most this many sessions get a new job per event-loop turn... */
  readonly chunkSize: number;
  /** ...and a turn stops early after this much time. */
  readonly sliceMs: number;
}

export interface TemplateBroadcastModules {
  /** The sessions logged in now, by id. */
  readonly sessions: ReadonlyMap<string, MinerSession>;
  /** Sends the session a job on the current template. */
  readonly push: (session: MinerSession) => void;
  readonly logger: Logger;
  /** Told how long a broadcast took, once it reached every session. */
  readonly onDone: (durationMs: number) => void;
}

/** Sessions pushed between two reads of the clock; a slice may overrun `sliceMs` by that many pushes. */
const CLOCK_READ_EVERY = 16;

/**
 * Pushes a job on a new template to every session (or a fresh one to those due it), at most
 * `chunkSize` sessions or `sliceMs` per event-loop turn, so that submits and socket I/O keep
 * flowing during a large broadcast (a job costs 5-30 µs). A newer broadcast abandons the one in
 * progress (its own reaches everyone).
 */
export class TemplateBroadcast {
  readonly #options: TemplateBroadcastOptions;
  readonly #modules: TemplateBroadcastModules;
  #generation = 0;
  #running = false;

  constructor(options: TemplateBroadcastOptions, modules: TemplateBroadcastModules) {
    this.#options = options;
    this.#modules = modules;
  }

  /** Whether a broadcast is still reaching its sessions. */
  get inProgress(): boolean {
    return this.#running;
  }

  /**
   * Pushes to every session that `needsJob` (by default: every one not mining on `templateId`
   * yet; one logged in after the template arrived already is).
   */
  start(
    templateId: number,
    change: TemplateChange,
    needsJob: (session: MinerSession) => boolean = (s) => s.lastTemplateId !== templateId,
  ): void {
    const generation = ++this.#generation;
    this.#running = true;
    const { sessions, push, logger } = this.#modules;
    const startedMs = performance.now();
    // Live, in login order: a session that leaves before its turn is not visited, and one that
    // joins is (needsJob skips it: its login job is on this template already). So no copy of
    // every session per push, and no lookup per session to see whether it is still there.
    const pending = sessions.values();
    let visited = 0;
    const chunk = Math.max(1, this.#options.chunkSize);
    const sliceMs = this.#options.sliceMs;
    const step = (): void => {
      if (generation !== this.#generation) return;
      const sliceStart = performance.now();
      for (let n = 1; n <= chunk; n++) {
        // The clock is read every few sessions, not before each: a read is ~0.3 µs, a few percent of a push.
        if (n % CLOCK_READ_EVERY === 0 && performance.now() - sliceStart >= sliceMs) break;
        const next = pending.next();
        if (next.done === true) {
          this.#running = false;
          const ms = performance.now() - startedMs;
          this.#modules.onDone(ms);
          logger.debug({ templateId, change, sessions: visited, ms }, 'template broadcast done');
          return;
        }
        visited++;
        if (needsJob(next.value)) push(next.value);
      }
      setImmediate(step);
    };
    step();
  }

  /** Abandons the broadcast in progress (the pool is closing). */
  cancel(): void {
    this.#generation++;
    this.#running = false;
  }
}
