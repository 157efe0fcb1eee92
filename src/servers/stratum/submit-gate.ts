/**
 * Holds a connection's submits back while its peer holds its share of the backend's share
 * verification (StratumBackend.canAcceptSubmits(ip) false). Waiting connections stop reading
 * their sockets, so TCP flow control slows those miners down instead of the pool rejecting good
 * shares, while other peers' submits go on. The backend has no "ready again" callback, so one
 * shared timer polls it for each waiting connection, and only while someone waits.
 */
export class SubmitGate {
  /** Resume callback -> the IP of the connection waiting. */
  readonly #waiters = new Map<() => void, string>();
  #timer: NodeJS.Timeout | undefined;
  readonly #canAccept: (ip: string) => boolean;
  readonly #pollMs: number;

  constructor(canAccept: (ip: string) => boolean, pollMs: number) {
    this.#canAccept = canAccept;
    this.#pollMs = pollMs;
  }

  isOpen(ip: string): boolean {
    return this.#canAccept(ip);
  }

  /** Calls `resume` once the backend accepts submits from `ip` again (unless cancelled first). */
  wait(resume: () => void, ip: string): void {
    this.#waiters.set(resume, ip);
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
    const ready: (() => void)[] = [];
    // One answer per IP per poll: a farm behind one address asks once, not once per connection.
    const answers = new Map<string, boolean>();
    for (const [resume, ip] of this.#waiters) {
      let open = answers.get(ip);
      if (open === undefined) {
        open = this.#canAccept(ip);
        answers.set(ip, open);
      }
      if (open) ready.push(resume);
    }
    for (const resume of ready) this.#waiters.delete(resume);
    if (this.#waiters.size === 0) this.stop();
    // Each connection re-checks per submit and waits again if the gate closes in between.
    for (const resume of ready) resume();
  }
}
