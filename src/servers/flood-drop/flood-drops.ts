import type { Server } from 'node:net';
import type { Logger } from '../../log/logger.js';
import { PeerBudget } from '../../pool/peer-budget.js';
import { type DropSource, dropProgram, dropSourceOf } from './drop-program.js';
import type { ListenerFilter } from './listener-filter.js';

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
const TRACKED_PEERS = 50_000;

interface Drop {
  readonly source: DropSource;
  readonly untilMs: number;
  readonly strikes: number;
}

export class FloodDrops {
  readonly #options: FloodDropOptions;
  readonly #filter: ListenerFilter;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #budget: PeerBudget;
  readonly #listeners = new Set<Server>();
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

  /** Filters `server`'s socket from now on (it must be listening). */
  addListener(server: Server): void {
    this.#listeners.add(server);
    if (this.#program !== null) this.#attach(server, this.#program);
  }

  removeListener(server: Server): void {
    this.#listeners.delete(server);
  }

  /** Peers whose new connections the kernel drops now. */
  dropping(): number {
    return this.#drops.size;
  }

  /** `peer` (a peer key) was refused a connection; past its budget its connections are dropped. */
  noteRefusal(peer: string): void {
    if (this.#options.refusals === 0 || this.#drops.has(peer) || this.#options.exemptPeers?.has(peer)) return;
    const nowMs = this.#now();
    if (this.#budget.take(peer, nowMs)) return;
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
    if (this.#program !== null) for (const server of this.#listeners) this.#detach(server);
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
      if (this.#program !== null) for (const server of this.#listeners) this.#detach(server);
      this.#program = null;
      return;
    }
    this.#program = dropProgram([...this.#drops.values()].map((drop) => drop.source));
    for (const server of this.#listeners) this.#attach(server, this.#program);
    const nextEndMs = Math.min(...[...this.#drops.values()].map((drop) => drop.untilMs));
    this.#timer = setTimeout(() => this.#apply(), Math.max(0, nextEndMs - nowMs));
    this.#timer.unref();
  }

  #attach(server: Server, program: Uint32Array): void {
    try {
      if (!this.#filter.attach(server, program)) this.#listeners.delete(server);
    } catch (error) {
      this.#logger.error(
        { err: error },
        'attaching the flood drop filter failed; refusing in Node as before',
      );
      this.#listeners.delete(server);
    }
  }

  #detach(server: Server): void {
    try {
      this.#filter.detach(server);
    } catch (error) {
      this.#logger.error({ err: error }, 'taking the flood drop filter off failed');
    }
  }
}
