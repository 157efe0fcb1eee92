import { CodecError } from './errors.js';
import { decodeVarint, type VarintWidth } from './varint.js';

/**
 * Sequential, bounds-checked reader over a byte array with an explicit offset.
 * Every failure is a CodecError whose `data.offset` says where decoding stopped.
 * Byte arrays returned by `readBytes`/`readHash32` are copies, so a parsed value never aliases the input.
 */
export class BinaryReader {
  readonly #bytes: Uint8Array;
  #offset: number;

  constructor(bytes: Uint8Array, offset = 0) {
    if (!Number.isInteger(offset) || offset < 0 || offset > bytes.length) {
      throw new CodecError('INVALID_VALUE', 'reader offset outside the data', {
        offset,
        length: bytes.length,
      });
    }
    this.#bytes = bytes;
    this.#offset = offset;
  }

  /** Position of the next byte to read. */
  get offset(): number {
    return this.#offset;
  }

  get length(): number {
    return this.#bytes.length;
  }

  get remaining(): number {
    return this.#bytes.length - this.#offset;
  }

  /** Throws `TRUNCATED` unless `count` more bytes are available. */
  ensure(count: number): void {
    if (count > this.remaining) {
      throw new CodecError('TRUNCATED', `need ${count} bytes, ${this.remaining} left`, {
        offset: this.#offset,
        needed: count,
        remaining: this.remaining,
      });
    }
  }

  readU8(): number {
    this.ensure(1);
    return this.#bytes[this.#offset++]!;
  }

  /** Fixed 4-byte little-endian unsigned integer (the block nonce). */
  readU32LE(): number {
    this.ensure(4);
    const b = this.#bytes;
    const o = this.#offset;
    this.#offset += 4;
    return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
  }

  readBytes(count: number): Uint8Array {
    this.ensure(count);
    const out = this.#bytes.slice(this.#offset, this.#offset + count);
    this.#offset += count;
    return out;
  }

  /** A raw 32-byte hash or key. */
  readHash32(): Uint8Array {
    return this.readBytes(32);
  }

  /** Varint of a field declared `width` bits wide, as bigint (see `decodeVarint` for the checks). */
  readVarint(width: VarintWidth = 64): bigint {
    const { value, length } = decodeVarint(this.#bytes, this.#offset, width);
    this.#offset += length;
    return value;
  }

  /** Varint of a field of at most 32 bits, as a number. */
  readVarintNumber(width: 8 | 16 | 32): number {
    return Number(this.readVarint(width));
  }

  /**
   * Element count of a vector (a 64-bit varint). Each element takes at least `minElementSize` bytes,
   * so a count larger than the rest of the data can only mean the data is cut short: `TRUNCATED`.
   * This also keeps a hostile count from allocating a huge array.
   */
  readCount(minElementSize: number): number {
    const start = this.#offset;
    const count = this.readVarint(64);
    if (count * BigInt(minElementSize) > BigInt(this.remaining)) {
      throw new CodecError('TRUNCATED', `vector of ${count} elements cannot fit in ${this.remaining} bytes`, {
        offset: start,
        count: count.toString(),
        remaining: this.remaining,
      });
    }
    return Number(count);
  }

  /** Varint byte length followed by that many bytes (tx extra, mm-tag body, message). */
  readVarBytes(): Uint8Array {
    return this.readBytes(this.readCount(1));
  }

  /** Throws `TRAILING_BYTES` unless everything was consumed. */
  assertEnd(): void {
    if (this.remaining !== 0) {
      throw new CodecError('TRAILING_BYTES', `${this.remaining} unexpected bytes after the end`, {
        offset: this.#offset,
        remaining: this.remaining,
      });
    }
  }
}
