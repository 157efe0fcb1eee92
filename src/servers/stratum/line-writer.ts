import type { Writable } from 'node:stream';

/** Why a writer gave up on its peer; the connection destroys the socket with this reason. */
export type WriteFault = 'slow-consumer' | 'write-timeout';

/** What the connection writes through: lines, each bounded by the limits below. */
export interface PeerWriter {
  /**
   * Holds this turn's writes in the corked socket until the next tick, so replies that complete
   * together (a verifier batch, a ledger batch) cost one writev, not one syscall each.
   */
  batchUntilNextTick(): void;
  /** Writes one line, or nothing once the socket is gone or stop() was called. */
  send(line: string): void;
  /** The socket is being destroyed: no more writes, no more deadline. */
  stop(): void;
}

export interface PeerWriterLimits {
  /** Bytes queued for a peer that does not read; beyond this it is a slow consumer. */
  readonly maxSendQueueBytes: number;
  /** Queued writes that make no progress for this long are a write timeout. */
  readonly writeTimeoutMs: number;
}

/** The part of a socket (or TLSSocket) the writer uses. */
export type WritableSocket = Pick<
  Writable,
  'write' | 'cork' | 'uncork' | 'writableLength' | 'destroyed' | 'writable'
>;

/**
 * Writes to one peer and bounds what that peer can make the pool hold: a send queue of at most
 * maxSendQueueBytes, and queued writes that must make progress every writeTimeoutMs. Either
 * fault is reported once through `onFault`; the writer never destroys the socket itself.
 */
export class SocketLineWriter implements PeerWriter {
  #corked = false;
  #stopped = false;
  #writeTimer: NodeJS.Timeout | undefined;
  #outstandingWrites = 0;
  readonly #socket: WritableSocket;
  readonly #limits: PeerWriterLimits;
  readonly #onFault: (fault: WriteFault) => void;

  constructor(socket: WritableSocket, limits: PeerWriterLimits, onFault: (fault: WriteFault) => void) {
    this.#socket = socket;
    this.#limits = limits;
    this.#onFault = onFault;
  }

  batchUntilNextTick(): void {
    if (this.#corked || this.#socket.destroyed) return;
    this.#corked = true;
    this.#socket.cork();
    process.nextTick(this.#uncork);
  }

  send(line: string): void {
    const socket = this.#socket;
    if (this.#stopped || socket.destroyed || !socket.writable) return;
    this.#outstandingWrites++;
    socket.write(line, this.#onWriteDone);
    const queuedBytes = socket.writableLength;
    if (queuedBytes > this.#limits.maxSendQueueBytes) {
      this.#onFault('slow-consumer');
      return;
    }
    // Nothing queued: the kernel took every byte already (the usual case, and every miner's on
    // each new template), so there is nothing to time out. The callback still comes, one tick later.
    if (queuedBytes === 0) return;
    this.#writeTimer ??= setTimeout(this.#onFault, this.#limits.writeTimeoutMs, 'write-timeout');
  }

  stop(): void {
    this.#stopped = true;
    if (this.#writeTimer !== undefined) clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
  }

  readonly #uncork = (): void => {
    this.#corked = false;
    if (!this.#socket.destroyed) this.#socket.uncork();
  };

  /** Every flushed write is progress: the write deadline restarts, and ends when nothing is queued. */
  readonly #onWriteDone = (): void => {
    this.#outstandingWrites--;
    if (this.#writeTimer === undefined) return;
    if (this.#outstandingWrites <= 0) {
      clearTimeout(this.#writeTimer);
      this.#writeTimer = undefined;
    } else {
      this.#writeTimer.refresh();
    }
  };
}
