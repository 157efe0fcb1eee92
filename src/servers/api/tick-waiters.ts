import { PeerSlots } from './peer-slots.js';

/** Why a long poll was not queued. */
export type WaitRefusal = 'too-many' | 'too-many-from-peer';

/**
 * The classic `/live_stats` long polls waiting for the live feed's next tick: at most `maxWaiters`
 * in all and `maxWaitersPerPeer` from one peer. Each release is numbered, and every waiter it
 * releases gets that number (so they can share one read).
 */
export class TickWaiters {
  readonly #maxWaiters: number;
  readonly #slots: PeerSlots;
  #waiters: ((release: number) => void)[] = [];
  #releases = 0;

  constructor(limits: { readonly maxWaiters: number; readonly maxWaitersPerPeer: number }) {
    this.#maxWaiters = limits.maxWaiters;
    this.#slots = new PeerSlots(limits.maxWaitersPerPeer);
  }

  /** Resolves with the number of the release that ends the wait; a refusal when over a cap. */
  wait(peer: string): Promise<number> | WaitRefusal {
    if (this.#waiters.length >= this.#maxWaiters) return 'too-many';
    if (!this.#slots.take(peer)) return 'too-many-from-peer';
    return new Promise((resolve) =>
      this.#waiters.push((release) => {
        this.#slots.release(peer);
        resolve(release);
      }),
    );
  }

  /** Ends every wait (a tick, or the feed closing). */
  releaseAll(): void {
    this.#releases += 1;
    for (const resolve of this.#waiters.splice(0)) resolve(this.#releases);
  }
}
