import { CodecError } from './errors.js';
import { varintLength, writeVarintInto } from './varint.js';

/** Growable byte buffer; `toBytes()` returns an exact-size copy of what was written. */
export class BinaryWriter {
  #buffer: Uint8Array;
  #length = 0;

  constructor(initialCapacity = 256) {
    this.#buffer = new Uint8Array(Math.max(16, initialCapacity));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#length;
  }

  writeU8(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xff) {
      throw new CodecError('INVALID_VALUE', 'byte value out of range', { value });
    }
    this.#reserve(1);
    this.#buffer[this.#length++] = value;
    return this;
  }

  /** Fixed 4-byte little-endian unsigned integer (the block nonce). */
  writeU32LE(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
      throw new CodecError('INVALID_VALUE', 'u32 value out of range', { value });
    }
    this.#reserve(4);
    const b = this.#buffer;
    const o = this.#length;
    b[o] = value & 0xff;
    b[o + 1] = (value >>> 8) & 0xff;
    b[o + 2] = (value >>> 16) & 0xff;
    b[o + 3] = (value >>> 24) & 0xff;
    this.#length += 4;
    return this;
  }

  writeBytes(bytes: Uint8Array): this {
    this.#reserve(bytes.length);
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
    return this;
  }

  /** A raw 32-byte hash or key; any other length is `INVALID_VALUE`. */
  writeHash32(hash: Uint8Array): this {
    if (hash.length !== 32) {
      throw new CodecError('INVALID_VALUE', 'hash must be 32 bytes', { length: hash.length });
    }
    return this.writeBytes(hash);
  }

  /** Unsigned varint; `width` bounds the value like the daemon's field type does. */
  writeVarint(value: bigint | number, width: 8 | 16 | 32 | 64 = 64): this {
    const size = varintLength(value); // validates the value first
    if (width < 64 && BigInt(value) >= 1n << BigInt(width)) {
      throw new CodecError('INVALID_VALUE', `value does not fit in ${width} bits`, {
        value: value.toString(),
        width,
      });
    }
    this.#reserve(size);
    this.#length = writeVarintInto(this.#buffer, this.#length, value);
    return this;
  }

  /** Varint byte length followed by the bytes. */
  writeVarBytes(bytes: Uint8Array): this {
    return this.writeVarint(bytes.length).writeBytes(bytes);
  }

  toBytes(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#buffer.length) return;
    let capacity = this.#buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = next;
  }
}
