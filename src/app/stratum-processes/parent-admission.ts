import type { AdmissionVerdict, ConnectionAdmission } from '../../servers/stratum/connection-admission.js';
import type { ChildMessage } from './child-messages.js';

interface PendingAdmission {
  readonly ip: string;
  readonly resolve: (verdict: AdmissionVerdict) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * A stratum child's connection caps, decided by its parent, which counts the connections of every
 * stratum process on the host: a miner cannot get `processes` times maxConnectionsPerIp by being
 * spread over the children. One IPC round trip per new connection (well under a millisecond);
 * shares and jobs never wait on it.
 */
export class ParentConnectionAdmission implements ConnectionAdmission {
  readonly #send: (message: ChildMessage) => boolean;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, PendingAdmission>();
  #nextRequestId = 1;
  #closed = false;

  /** `send` returns false when there is no parent to ask (the connection is then refused). */
  constructor(send: (message: ChildMessage) => boolean, timeoutMs = 5_000) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
  }

  admit(ip: string): AdmissionVerdict | Promise<AdmissionVerdict> {
    if (this.#closed) return 'shutting-down';
    const requestId = this.#nextRequestId++;
    if (!this.#send({ kind: 'admit', requestId, ip })) return 'shutting-down';
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(requestId);
        resolve('admission-timeout');
      }, this.#timeoutMs);
      this.#pending.set(requestId, { ip, resolve, timer });
    });
  }

  release(ip: string): void {
    this.#send({ kind: 'release', ip });
  }

  /** The parent's `admission` message. */
  answer(requestId: number, ip: string, verdict: AdmissionVerdict): void {
    const pending = this.#pending.get(requestId);
    if (pending === undefined) {
      // Answered after the timeout refused the connection: give the parent its count back.
      if (verdict === 'admit') this.release(ip);
      return;
    }
    this.#pending.delete(requestId);
    clearTimeout(pending.timer);
    pending.resolve(verdict);
  }

  /** Refuses the connections still waiting for an answer and every later one. */
  close(): void {
    this.#closed = true;
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.resolve('shutting-down');
    }
    this.#pending.clear();
  }
}
