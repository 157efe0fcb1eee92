import type { Writable } from 'node:stream';
import type { BatchedLineTarget, CopyableLine, SocketWriteBatch } from './socket-write-batch.js';

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
  send(line: string | CopyableLine): void;
  /** Writes now a line held back in a batch, so that it goes out before the socket is ended. */
  flushHeld(): void;
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

/** Lines written past Node's stream, in a batch with other sockets' lines (socket-write-batch.ts). */
export interface DirectLineWrites {
  readonly batch: SocketWriteBatch;
  /** The socket's descriptor, or undefined once it has none. */
  readonly fd: () => number | undefined;
}

/**
 * Writes to one peer and bounds what that peer can make the pool hold: a send queue of at most
 * maxSendQueueBytes, and queued writes that must make progress every writeTimeoutMs. Either
 * fault is reported once through `onFault`; the writer never destroys the socket itself.
 *
 * With `direct`, a line goes into the batch instead when nothing of this peer's is queued in Node
 * (the usual case: every miner's job on a new template); what the kernel does not take of it
 * comes back and is written through Node, so the limits above hold for it too.
 */
export class SocketLineWriter implements PeerWriter, BatchedLineTarget {
  #corked = false;
  #stopped = false;
  #writeTimer: NodeJS.Timeout | undefined;
  /** Writes handed to Node whose callback has not come: while 0, Node holds nothing of this peer's. */
  #outstandingWrites = 0;
  readonly #socket: WritableSocket;
  readonly #limits: PeerWriterLimits;
  readonly #onFault: (fault: WriteFault) => void;
  readonly #direct: DirectLineWrites | undefined;
  /** The batch's flush count when this peer's line went into it; -1: none is waiting there. */
  #queuedAtFlush = -1;

  /**
   * The socket's descriptor, for the batch (BatchedLineTarget): the descriptor reader itself, which
   * the batch asks of every line it writes, one load away from the writer it holds.
   */
  readonly fd: () => number | undefined;

  constructor(
    socket: WritableSocket,
    limits: PeerWriterLimits,
    onFault: (fault: WriteFault) => void,
    direct?: DirectLineWrites,
  ) {
    this.#socket = socket;
    this.#limits = limits;
    this.#onFault = onFault;
    this.#direct = direct;
    this.fd = direct?.fd ?? noDescriptor;
  }

  /** What the kernel left of this peer's line in the batch (BatchedLineTarget) goes through Node. */
  settle(line: Uint8Array, taken: number): void {
    if (this.#stopped || this.#socket.destroyed || !this.#socket.writable) return;
    this.#write(taken > 0 ? line.subarray(taken) : line);
  }

  batchUntilNextTick(): void {
    if (this.#corked || this.#socket.destroyed) return;
    this.#corked = true;
    this.#socket.cork();
    process.nextTick(SocketLineWriter.#uncork, this);
  }

  send(line: string | CopyableLine): void {
    if (this.#stopped) return;
    const direct = this.#direct;
    if (direct !== undefined) {
      // Its line in the batch goes first; what the kernel leaves of it is queued in Node then.
      this.flushHeld();
      // Nothing but this writer writes to the socket: with none of its writes waiting in Node and
      // the socket not corked, nothing of this peer's is queued before the line. The socket itself
      // is not read here, as on a push its stream state would cost a cache miss or two per miner.
      // One destroyed since has no descriptor when the batch is written, and one Node has ended
      // takes the line before its FIN or refuses it (EPIPE): settle() then drops what is left.
      if (!this.#corked && this.#outstandingWrites === 0) {
        const flushes = direct.batch.flushes;
        if (direct.batch.enqueue(this, line)) {
          this.#queuedAtFlush = flushes;
          return;
        }
      }
    }
    // Not writable covers destroyed too (a destroyed stream's writable side is), in one getter.
    if (!this.#socket.writable) return;
    this.#write(typeof line === 'string' ? line : line.text);
  }

  #write(chunk: string | Uint8Array): void {
    const socket = this.#socket;
    this.#outstandingWrites++;
    socket.write(chunk, this.#onWriteDone);
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

  flushHeld(): void {
    const direct = this.#direct;
    if (direct !== undefined && this.#queuedAtFlush === direct.batch.flushes) direct.batch.flush();
  }

  stop(): void {
    // A line sent before the destroy reaches the kernel, as one written through Node would have.
    this.flushHeld();
    this.#stopped = true;
    if (this.#writeTimer !== undefined) clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
  }

  /** Static, not a closure per writer: every miner's writer would keep one. */
  static #uncork(writer: SocketLineWriter): void {
    writer.#corked = false;
    if (!writer.#socket.destroyed) writer.#socket.uncork();
  }

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

/** A writer without direct writes is never in a batch; its `fd` says it has no descriptor. */
function noDescriptor(): undefined {
  return undefined;
}
