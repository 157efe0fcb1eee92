import {
  type AdmissionVerdict,
  type ConnectionCaps,
  ConnectionCounter,
} from '../../servers/stratum/connection-admission.js';

/**
 * The parent's count of the stratum connections of all its child processes, against the caps of
 * stratum.limits, so the caps hold for the host. Each child's connections are also kept apart, so
 * that those of a child that died are given back at once.
 */
export class HostConnectionCounts {
  readonly #host: ConnectionCounter;
  readonly #byChild = new Map<number, Map<string, number>>();

  constructor(caps: ConnectionCaps) {
    this.#host = new ConnectionCounter(caps);
  }

  get total(): number {
    return this.#host.total;
  }

  admit(child: number, ip: string): AdmissionVerdict {
    const verdict = this.#host.admit(ip);
    if (verdict === 'admit') {
      const counts = this.#byChild.get(child) ?? new Map<string, number>();
      this.#byChild.set(child, counts);
      counts.set(ip, (counts.get(ip) ?? 0) + 1);
    }
    return verdict;
  }

  /** A release the child has no admitted connection for is ignored. */
  release(child: number, ip: string): void {
    const counts = this.#byChild.get(child);
    const count = counts?.get(ip) ?? 0;
    if (counts === undefined || count === 0) return;
    if (count === 1) counts.delete(ip);
    else counts.set(ip, count - 1);
    this.#host.release(ip);
  }

  /** The child is gone, and its connections with it. */
  releaseChild(child: number): void {
    const counts = this.#byChild.get(child);
    if (counts === undefined) return;
    this.#byChild.delete(child);
    for (const [ip, count] of counts) for (let i = 0; i < count; i++) this.#host.release(ip);
  }
}
