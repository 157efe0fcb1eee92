import { CodecError } from './errors.js';

/** Declared width of an integer field; the daemon serializes all of them as varints. */
export type VarintWidth = 8 | 16 | 32 | 64;

/** A decoded varint and how many bytes it took. */
export interface DecodedVarint {
  readonly value: bigint;
  readonly length: number;
}

const MAX_U64 = (1n << 64n) - 1n;
/** Largest value that can be accumulated with float arithmetic without losing bits (7 groups = 49 bits). */
const NUMBER_GROUPS = 7;

/**
 * Unsigned LEB128: 7 data bits per byte, least significant group first, high bit = more bytes follow.
 * Accepts any non-negative integer up to 2^64 − 1 (a number must be a safe integer).
 */
export function encodeVarint(value: bigint | number): Uint8Array {
  const out = new Uint8Array(varintLength(value));
  writeVarintInto(out, 0, value);
  return out;
}

/** Number of bytes `encodeVarint(value)` produces. */
export function varintLength(value: bigint | number): number {
  let v = toU64(value);
  let length = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    length++;
  }
  return length;
}

/** Writes the varint of `value` at `offset` (the caller sized `target`); returns the offset after it. */
export function writeVarintInto(target: Uint8Array, offset: number, value: bigint | number): number {
  let pos = offset;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 0xffffffff) {
    // Fast path for the common small values (versions, counts, heights).
    let v = value;
    while (v >= 0x80) {
      target[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    target[pos++] = v;
    return pos;
  }
  let v = toU64(value);
  while (v >= 0x80n) {
    target[pos++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  target[pos++] = Number(v);
  return pos;
}

/**
 * Reads a varint at `offset` as the daemon's `readVarint` does for a field of `width` bits:
 * - the byte at the last possible position (shift ≥ width − 7) must be below 2^(width − shift),
 *   which also forbids a continuation bit there, else `VARINT_OVERFLOW`;
 * - a final 0x00 after a continuation byte is `VARINT_NON_CANONICAL`;
 * - running out of bytes is `TRUNCATED`.
 */
export function decodeVarint(bytes: Uint8Array, offset: number, width: VarintWidth = 64): DecodedVarint {
  let numberValue = 0;
  let bigValue = 0n;
  let pos = offset;
  for (let group = 0; ; group++) {
    const shift = group * 7;
    const piece = bytes[pos];
    if (piece === undefined) {
      throw new CodecError('TRUNCATED', 'unexpected end of data inside a varint', {
        offset: pos,
        start: offset,
      });
    }
    pos++;
    if (shift >= width - 7 && piece >= 1 << (width - shift)) {
      throw new CodecError('VARINT_OVERFLOW', `varint does not fit in ${width} bits`, {
        offset: pos - 1,
        start: offset,
        width,
      });
    }
    const data = piece & 0x7f;
    if (group < NUMBER_GROUPS) {
      numberValue += data * 2 ** shift;
    } else {
      bigValue |= BigInt(data) << BigInt(shift);
    }
    if ((piece & 0x80) === 0) {
      if (piece === 0 && shift !== 0) {
        throw new CodecError('VARINT_NON_CANONICAL', 'varint ends with a zero byte', {
          offset: pos - 1,
          start: offset,
        });
      }
      return { value: bigValue | BigInt(numberValue), length: pos - offset };
    }
  }
}

/** `decodeVarint` for fields of at most 32 bits, returning a number. */
export function decodeVarintNumber(
  bytes: Uint8Array,
  offset: number,
  width: 8 | 16 | 32,
): { readonly value: number; readonly length: number } {
  const { value, length } = decodeVarint(bytes, offset, width);
  return { value: Number(value), length };
}

function toU64(value: bigint | number): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new CodecError('INVALID_VALUE', 'varint value must be a safe integer', { value });
  }
  const v = BigInt(value);
  if (v < 0n || v > MAX_U64) {
    throw new CodecError('INVALID_VALUE', 'varint value out of the unsigned 64-bit range', {
      value: v.toString(),
    });
  }
  return v;
}
