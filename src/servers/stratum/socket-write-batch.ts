import type { Socket } from 'node:net';
import { loadSupportedAddon } from '../../native-addon.js';

/** What build/Release/fuego_socket_write.node exports (native/socket_write.cc). */
interface SocketWriteAddon {
  writeLines(fds: Int32Array, data: Uint8Array, ends: Uint32Array, count: number, results: Int32Array): void;
  supported(): boolean;
}

/** One line handed to the batch: where it goes, and who hears how much of it the kernel took. */
export interface BatchedLineTarget {
  /** The socket's descriptor now, or undefined once it has none (destroyed, closed). */
  fd(): number | undefined;
  /**
   * The batch was written: `taken` bytes of `line` went to the kernel, or -errno (none did; EAGAIN
   * when its buffer was full, EBADF when the socket had no descriptor any more). What was not
   * taken is the target's to write through Node, whose own write then reports any error.
   */
  settle(line: Uint8Array, taken: number): void;
}

/** A line held as parts rather than one string, which the batch copies as bytes (protocol.ts's SharedBlobJobLine). */
export interface CopyableLine {
  readonly byteLength: number;
  /** Writes the line's `byteLength` bytes at `offset`; returns how many it wrote. */
  copyTo(target: Uint8Array, offset: number): number;
  /** The line as a string, for a write through Node's stream. */
  readonly text: string;
}

/** A batch of lines, each for its own socket, written with one native call (native/socket_write.cc). */
export interface SocketWriteBatch {
  /**
   * Queues `line` for `target`; false when it does not fit a batch (the caller writes it through
   * Node). The batch is written before the next microtask, or at once when full; a target must not
   * queue a second line before its first settled (the order between them would be lost).
   */
  enqueue(target: BatchedLineTarget, line: string | CopyableLine): boolean;
  /** Writes what is queued now (before anything else is written to those sockets). */
  flush(): void;
  /** Batches written so far: a line queued when this was n is written once it is n + 1. */
  readonly flushes: number;
}

/** Batch bytes: a slice of a large push is a few hundred job lines of ~400 bytes. */
const BATCH_BYTES = 512 * 1024;
const BATCH_LINES = 2048;
/** A UTF-16 code unit encodes to at most 3 UTF-8 bytes. */
const MAX_UTF8_PER_UNIT = 3;

class NativeSocketWriteBatch implements SocketWriteBatch {
  readonly #addon: SocketWriteAddon;
  readonly #data = Buffer.allocUnsafe(BATCH_BYTES);
  readonly #fds = new Int32Array(BATCH_LINES);
  readonly #ends = new Uint32Array(BATCH_LINES);
  readonly #results = new Int32Array(BATCH_LINES);
  readonly #targets: BatchedLineTarget[] = [];
  #bytes = 0;
  #flushQueued = false;
  #flushes = 0;

  constructor(addon: SocketWriteAddon) {
    this.#addon = addon;
  }

  enqueue(target: BatchedLineTarget, line: string | CopyableLine): boolean {
    const text = typeof line === 'string';
    const worstCase = text ? line.length * MAX_UTF8_PER_UNIT : line.byteLength;
    if (worstCase > BATCH_BYTES) return false;
    if (this.#bytes + worstCase > BATCH_BYTES || this.#targets.length === BATCH_LINES) this.flush();
    this.#bytes += text ? this.#data.write(line, this.#bytes, 'utf8') : line.copyTo(this.#data, this.#bytes);
    this.#ends[this.#targets.length] = this.#bytes;
    this.#targets.push(target);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(this.#flushQueuedBatch);
    }
    return true;
  }

  get flushes(): number {
    return this.#flushes;
  }

  flush(): void {
    const targets = this.#targets;
    const count = targets.length;
    if (count === 0) return;
    // Read now, synchronously before the write: a socket destroyed since it queued has no
    // descriptor (-1: skipped), and its number may already belong to another socket.
    for (let i = 0; i < count; i++) this.#fds[i] = targets[i]!.fd() ?? -1;
    this.#addon.writeLines(this.#fds, this.#data, this.#ends, count, this.#results);
    const bytes = this.#bytes;
    this.#bytes = 0;
    let short = false;
    for (let i = 0, start = 0; i < count && !short; start = this.#ends[i++]!) {
      short = this.#results[i] !== this.#ends[i]! - start;
    }
    const settling = targets.splice(0, count);
    this.#flushes++;
    if (short) this.#settle(settling, Buffer.from(this.#data.subarray(0, bytes)));
  }

  /**
   * Tells the targets of lines not taken in full. Copies of the batch's arrays: a settle that leads
   * to a new line being queued must not overwrite the ones still to settle.
   */
  #settle(targets: readonly BatchedLineTarget[], data: Buffer): void {
    const ends = this.#ends.slice(0, targets.length);
    const results = this.#results.slice(0, targets.length);
    for (let i = 0, start = 0; i < targets.length; start = ends[i++]!) {
      if (results[i] !== ends[i]! - start) targets[i]!.settle(data.subarray(start, ends[i]), results[i]!);
    }
  }

  readonly #flushQueuedBatch = (): void => {
    this.#flushQueued = false;
    this.flush();
  };
}

/**
 * The batched writer, or why not: the addon is not built, or this platform has no send() it
 * can use. Then the pool writes every line through Node's stream as before.
 */
export function loadSocketWriteBatch(
  fromUrl: string = import.meta.url,
): { batch: SocketWriteBatch } | { unavailable: string } {
  const loaded = loadSupportedAddon<SocketWriteAddon>(
    'fuego_socket_write.node',
    'batched socket writes',
    fromUrl,
  );
  if ('unavailable' in loaded) return loaded;
  return { batch: new NativeSocketWriteBatch(loaded.addon) };
}

/**
 * The descriptor of a plain TCP socket that libuv holds, or undefined: a socket being destroyed
 * or closed has none, nor has a TLS socket or any other stream.
 */
export function plainSocketFd(socket: Socket): number | undefined {
  if (socket.destroyed) return undefined;
  const fd = handleOf(socket)?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * plainSocketFd as a function of the socket's life, with the descriptor read once: a handle keeps
 * its descriptor until it is closed, and Node's getter for it is a native call, which a push
 * would make for every miner. Undefined once the socket is destroyed: destroy() lets go of the
 * handle before it returns (net.Socket's _destroy), so the handle alone says so.
 */
export function socketFdReader(socket: Socket): () => number | undefined {
  const handle = handleOf(socket);
  const fd = plainSocketFd(socket);
  if (fd === undefined) return () => undefined;
  return () => (handleOf(socket) === handle ? fd : undefined);
}

function handleOf(socket: Socket): { readonly fd?: unknown } | null | undefined {
  return (socket as unknown as { _handle?: { fd?: unknown } | null })._handle;
}
