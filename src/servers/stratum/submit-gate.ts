/**
 * Holds submits back while the backend's share verification is saturated
 * (StratumBackend.canAcceptSubmits() false). Waiting connections stop reading their sockets, so
 * TCP flow control slows the miners down instead of the pool rejecting good shares. The backend
 * has no "ready again" callback, so one shared timer polls it, and only while someone waits.
 */
export class SubmitGate {
  readonly #waiters = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;
  readonly #canAccept: () => boolean;
  readonly #pollMs: number;

  constructor(canAccept: () => boolean, pollMs: number) {
    this.#canAccept = canAccept;
    this.#pollMs = pollMs;
  }

  isOpen(): boolean {
    return this.#canAccept();
  }

  /** Calls `resume` once the backend accepts submits again (unless cancelled first). */
  wait(resume: () => void): void {
    this.#waiters.add(resume);
    if (!this.#timer) this.#timer = setInterval(() => this.#poll(), this.#pollMs);
  }

  cancel(resume: () => void): void {
    this.#waiters.delete(resume);
    if (this.#waiters.size === 0) this.stop();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #poll(): void {
    if (!this.#canAccept()) return;
    const ready = [...this.#waiters];
    this.#waiters.clear();
    this.stop();
    // Each connection re-checks per submit and waits again if the gate closes in between.
    for (const resume of ready) resume();
  }
}
