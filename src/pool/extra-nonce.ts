import { FuegoPoolError } from '../errors.js';

export type ExtraNonceErrorCode = 'INVALID_NODE_ID' | 'AREA_TOO_SMALL';

export class ExtraNonceError extends FuegoPoolError<ExtraNonceErrorCode> {}

/** Node id (2 bytes) plus the smallest counter we accept (4 bytes: 2^32 jobs before a wrap). */
export const MIN_EXTRA_NONCE_BYTES = 6;
/** Counters stay below 2^48 so that they fit a JS number exactly. */
const MAX_COUNTER_BYTES = 6;
const NODE_ID_BYTES = 2;

export interface ExtraNonceAllocatorOptions {
  /** This stratum node's id, 0..65535; distinct per node so nodes never hand out the same bytes. */
  readonly nodeId: number;
  /**
   * First counter value. A random start (the default in PoolBackend) makes it unlikely that a
   * restarted process re-issues the extra nonces it used before the restart on the same template.
   */
  readonly counterStart?: number;
}

/**
 * Hands out the bytes each job writes into the template's reserved area (spec fuego-format §5.6
 * step 3), so that every job of every session on every node has a distinct hashing blob:
 *
 *   offset 0..1   node id, uint16 big-endian
 *   offset 2..    per-process counter, big-endian, (capacity − 2) bytes, at most 6
 *
 * The counter never repeats within a process until it wraps at 2^(8·counterBytes) (at least 2^32
 * jobs). Template bytes after the written ones keep the daemon's values (zeros).
 */
export class ExtraNonceAllocator {
  readonly nodeId: number;
  #counter: number;

  constructor(options: ExtraNonceAllocatorOptions) {
    const { nodeId } = options;
    if (!Number.isInteger(nodeId) || nodeId < 0 || nodeId > 0xffff) {
      throw new ExtraNonceError('INVALID_NODE_ID', 'node id must be an integer 0..65535', { nodeId });
    }
    this.nodeId = nodeId;
    const start = options.counterStart ?? 0;
    this.#counter = Number.isSafeInteger(start) && start >= 0 ? start % 2 ** (8 * MAX_COUNTER_BYTES) : 0;
  }

  /** How many extra nonces were handed out since construction plus the start value. */
  get counter(): number {
    return this.#counter;
  }

  /** The next extra nonce for a template whose usable reserved area holds `capacity` bytes. */
  next(capacity: number): Uint8Array {
    if (capacity < MIN_EXTRA_NONCE_BYTES) {
      throw new ExtraNonceError(
        'AREA_TOO_SMALL',
        `template reserved area holds ${capacity} bytes; at least ${MIN_EXTRA_NONCE_BYTES} are needed (request reserve_size >= ${MIN_EXTRA_NONCE_BYTES + 1})`,
        { capacity },
      );
    }
    const counterBytes = Math.min(capacity - NODE_ID_BYTES, MAX_COUNTER_BYTES);
    const value = this.#counter;
    this.#counter = (this.#counter + 1) % 2 ** (8 * MAX_COUNTER_BYTES);
    const out = new Uint8Array(NODE_ID_BYTES + counterBytes);
    out[0] = this.nodeId >>> 8;
    out[1] = this.nodeId & 0xff;
    // Big-endian counter, low bytes last; higher bytes than counterBytes are dropped (wrap).
    let rest = value;
    for (let index = out.length - 1; index >= NODE_ID_BYTES; index--) {
      out[index] = rest % 256;
      rest = Math.floor(rest / 256);
    }
    return out;
  }
}
