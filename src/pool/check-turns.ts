/**
 * Hands out turns for costly synchronous checks (a new address's ed25519 point checks, ~1.4 ms of
 * event loop each): one turn per event-loop iteration, the waiting peers one after another. A
 * burst of new addresses from one client (20 logins at once, a feed subscribing to 50) would
 * otherwise hold the loop for tens of milliseconds, and every honest miner's reply with it; with
 * turns the loop polls I/O between two checks, and another peer's check waits for at most one of
 * each waiting peer's. The caller runs its check synchronously once `turn` resolves.
 */
export class CheckTurns {
  /** Per peer, its callers in order; the Map's order is the round robin (served peers go last). */
  readonly #waiting = new Map<string, Array<() => void>>();
  #scheduled = false;

  /** Resolves when it is `peer`'s turn: in a later iteration of the event loop, never at once. */
  turn(peer: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.#waiting.get(peer);
      if (queue === undefined) this.#waiting.set(peer, [resolve]);
      else queue.push(resolve);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#next);
  }

  readonly #next = (): void => {
    this.#scheduled = false;
    const first = this.#waiting.entries().next();
    if (first.done === true) return;
    const [peer, queue] = first.value;
    const resolve = queue.shift();
    this.#waiting.delete(peer);
    if (queue.length > 0) this.#waiting.set(peer, queue);
    // The caller's check runs in the microtasks right after this callback; the next turn is
    // in the next iteration, after the loop has polled I/O.
    resolve?.();
    if (this.#waiting.size > 0) this.#schedule();
  };
}
