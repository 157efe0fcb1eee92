import type { Refusal, ServerFloodDrops } from '../../servers/flood-drop/flood-drops.js';
import { type ChildMessage, MAX_REFUSAL_PEERS } from './child-messages.js';

/** How long a child gathers its refusals before it reports them. */
export const REFUSAL_REPORT_INTERVAL_MS = 100;

/**
 * A stratum child's side of the kernel flood drops: it has no listening socket of its own (Node
 * cluster's primary, the pool process, accepts for it), so the pool process keeps the refusal
 * budgets and attaches the drops (primary-flood-drops.ts); this child tells it whom it refused.
 *
 * Refusals are counted per peer and sent once per REFUSAL_REPORT_INTERVAL_MS, not one message
 * each: under a flood (thousands of refusals a second from one peer) one message per refusal
 * would put as many IPC messages (a serialization, a pipe write, a parse in the pool process) on
 * both event loops as the refusals themselves cost, while a peer's count for 100 ms is one entry.
 * A drop then starts at most that much later, a small part of the budget a peer spends before it
 * (floodDrop.refusals at flood rates). A report holds at most MAX_REFUSAL_PEERS peers; with more
 * in one interval it is sent at once, so what a child holds stays bounded.
 */
export class ChildRefusalReports implements ServerFloodDrops {
  readonly #send: (message: ChildMessage) => void;
  readonly #intervalMs: number;
  #counts = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(send: (message: ChildMessage) => void, intervalMs = REFUSAL_REPORT_INTERVAL_MS) {
    this.#send = send;
    this.#intervalMs = intervalMs;
  }

  /** The pool process filters the listening sockets it holds: nothing to do here. */
  addListener(): void {}

  removeListener(): void {}

  /** The pool process's drops are counted there (StratumProcessGroup's stats): none here. */
  dropping(): number {
    return 0;
  }

  noteRefusal(peer: string, refusal?: Refusal): void {
    // The connection caps are the pool process's verdicts (ParentConnectionAdmission): it noted
    // each one as it gave it.
    if (this.#closed || refusal === 'connection-cap') return;
    this.#counts.set(peer, (this.#counts.get(peer) ?? 0) + 1);
    if (this.#counts.size >= MAX_REFUSAL_PEERS) this.#report();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#report(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  /** Sends what is counted and reports no more (the child is stopping). */
  close(): void {
    this.#report();
    this.#closed = true;
  }

  #report(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#counts.size === 0) return;
    const peers = [...this.#counts];
    this.#counts = new Map();
    this.#send({ kind: 'refusals', peers });
  }
}
