import type { Logger } from '../../log/logger.js';
import { PeerBudget } from '../../pool/peer-budget.js';
import { type DropSource, dropProgram, dropSourceOf } from './drop-program.js';
import type { FilteredListener, ListenerFilter } from './listener-filter.js';

/**
 * A peer whose connections the pool keeps refusing (banned, or over its connection cap) and that
 * keeps coming at flood rates has its new connections dropped by the kernel for a while: each
 * refusal in Node costs an accept, a handle and a reset on the event loop that serves the honest
 * miners, and ~5,000 a second took the pool from ~20% to ~55% of a core. Honest miners retry
 * every few seconds, far below the rate that starts a drop. A drop ends on its own; a peer that
 * floods again gets twice as long (up to maxDropMs).
 */
export interface FloodDropOptions {
  /** Refusals a peer may run up at once before a drop (the budget's burst); 0 turns drops off. */
  readonly refusals: number;
  /** Refusals per second the budget gives back: a peer refused more often than this is flooding. */
  readonly refusalsPerSec: number;
  readonly dropMs: number;
  readonly maxDropMs: number;
  /** Sources dropped at once (the program's length is bounded); the one ending soonest makes room. */
  readonly maxSources: number;
  /** Peer keys never dropped (the operator's own proxy, say: the bans' exempt addresses). */
  readonly exemptPeers?: ReadonlySet<string>;
}

export const DEFAULT_FLOOD_DROP_OPTIONS: FloodDropOptions = Object.freeze({
  refusals: 500,
  refusalsPerSec: 100,
  dropMs: 60_000,
  maxDropMs: 3_600_000,
  maxSources: 256,
});

/** A repeat offender's drop doubles if it floods again within this long of its last drop's end. */
const STRIKE_MEMORY_MS = 3_600_000;

/**
 * Why a server refused a peer: a ban at accept, its connection cap (per IP or IPv6 network), or a
 * close for what it sent (a refused login, a protocol violation).
 */
export type Refusal = 'banned' | 'connection-cap' | 'login-failed' | 'protocol-violation';

/**
 * The drops as a server sees them: where its listeners go once listening, where it notes each
 * refusal, and how many peers are dropped (its metrics). FloodDrops in one process; in a stratum
 * child process, a report of its refusals to the pool process (child-refusal-reports.ts).
 */
export interface ServerFloodDrops {
  addListener(listener: FilteredListener): void;
  removeListener(listener: FilteredListener): void;
  dropping(): number;
  noteRefusal(peer: string, refusal?: Refusal): void;
}
const TRACKED_PEERS = 50_000;

interface Drop {
  readonly source: DropSource;
  readonly untilMs: number;
  readonly strikes: number;
}

export class FloodDrops implements ServerFloodDrops {
  readonly #options: FloodDropOptions;
  readonly #filter: ListenerFilter;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #budget: PeerBudget;
  readonly #listeners = new Set<FilteredListener>();
  readonly #drops = new Map<string, Drop>();
  /** Peers dropped before, by when their strike count is forgotten. */
  readonly #strikes = new Map<string, { strikes: number; forgetAtMs: number }>();
  #program: Uint32Array | null = null;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    options: FloodDropOptions,
    filter: ListenerFilter,
    logger: Logger,
    now: () => number = Date.now,
  ) {
    this.#options = options;
    this.#filter = filter;
    this.#logger = logger;
    this.#now = now;
    this.#budget = new PeerBudget({
      burst: options.refusals,
      perMinute: options.refusalsPerSec * 60,
      maxPeers: TRACKED_PEERS,
    });
  }

  /** Filters the listener's socket from now on (it must be listening). */
  addListener(listener: FilteredListener): void {
    this.#listeners.add(listener);
    if (this.#program !== null) this.#attach(listener, this.#program);
  }

  removeListener(listener: FilteredListener): void {
    this.#listeners.delete(listener);
  }

  /** Peers whose new connections the kernel drops now. */
  dropping(): number {
    return this.#drops.size;
  }

  /**
   * `peer` (a peer key) was refused a connection; past its budget its connections are dropped.
   * Every kind of refusal counts alike.
   */
  noteRefusal(peer: string, _refusal?: Refusal): void {
    this.noteRefusals(peer, 1);
  }

  /** `count` refusals of `peer` at once (a stratum child's report, child-refusal-reports.ts). */
  noteRefusals(peer: string, count: number): void {
    if (this.#options.refusals === 0 || this.#options.exemptPeers?.has(peer)) return;
    const nowMs = this.#now();
    for (let i = 0; i < count && !this.#drops.has(peer); i++) {
      if (!this.#budget.take(peer, nowMs)) this.#startDrop(peer);
    }
  }

  #startDrop(peer: string): void {
    const nowMs = this.#now();
    const source = dropSourceOf(peer);
    if (source === null) return;
    const past = this.#strikes.get(peer);
    const strikes = past !== undefined && past.forgetAtMs > nowMs ? past.strikes + 1 : 1;
    const dropMs = Math.min(this.#options.maxDropMs, this.#options.dropMs * 2 ** (strikes - 1));
    if (this.#drops.size >= this.#options.maxSources) this.#dropSoonestEnding();
    this.#drops.set(peer, { source, untilMs: nowMs + dropMs, strikes });
    this.#strikes.set(peer, { strikes, forgetAtMs: nowMs + dropMs + STRIKE_MEMORY_MS });
    this.#logger.warn(
      { peer, dropSeconds: dropMs / 1000, strikes, refusalsPerSec: this.#options.refusalsPerSec },
      'peer keeps connecting while refused; the kernel drops its new connections for a while',
    );
    this.#apply();
  }

  /** Takes the program off every listener and stops the timer (the pool is stopping). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#drops.clear();
    if (this.#program !== null) for (const listener of this.#listeners) this.#detach(listener);
    this.#program = null;
  }

  #dropSoonestEnding(): void {
    let soonest: string | undefined;
    let soonestMs = Number.POSITIVE_INFINITY;
    for (const [peer, drop] of this.#drops) {
      if (drop.untilMs < soonestMs) [soonest, soonestMs] = [peer, drop.untilMs];
    }
    if (soonest !== undefined) this.#drops.delete(soonest);
  }

  /** Ends the drops that are over, then attaches the program for the rest (or takes it off). */
  #apply(): void {
    const nowMs = this.#now();
    for (const [peer, drop] of this.#drops) if (drop.untilMs <= nowMs) this.#drops.delete(peer);
    for (const [peer, past] of this.#strikes) if (past.forgetAtMs <= nowMs) this.#strikes.delete(peer);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#drops.size === 0) {
      if (this.#program !== null) for (const listener of this.#listeners) this.#detach(listener);
      this.#program = null;
      return;
    }
    this.#program = dropProgram([...this.#drops.values()].map((drop) => drop.source));
    for (const listener of this.#listeners) this.#attach(listener, this.#program);
    const nextEndMs = Math.min(...[...this.#drops.values()].map((drop) => drop.untilMs));
    this.#timer = setTimeout(() => this.#apply(), Math.max(0, nextEndMs - nowMs));
    this.#timer.unref();
  }

  #attach(listener: FilteredListener, program: Uint32Array): void {
    try {
      if (!this.#filter.attach(listener, program)) this.#listeners.delete(listener);
    } catch (error) {
      this.#logger.error(
        { err: error },
        'attaching the flood drop filter failed; refusing in Node as before',
      );
      this.#listeners.delete(listener);
    }
  }

  #detach(listener: FilteredListener): void {
    try {
      this.#filter.detach(listener);
    } catch (error) {
      this.#logger.error({ err: error }, 'taking the flood drop filter off failed');
    }
  }
}
