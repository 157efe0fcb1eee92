import { FuegoPoolError } from '../errors.js';

export type Base58ErrorCode = 'BAD_CHARACTER' | 'BAD_BLOCK_SIZE' | 'BLOCK_OVERFLOW';

/**
 * Text that is not valid CryptoNote base58. `data.position` (BAD_CHARACTER) is 1-based, as a person
 * counts characters; `data.blockIndex` (BLOCK_OVERFLOW) is 0-based.
 */
export class Base58Error extends FuegoPoolError<Base58ErrorCode> {}

export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const FULL_BLOCK_BYTES = 8;
const FULL_BLOCK_CHARS = 11;
/** Characters used for a block of k bytes, indexed by k (0..8). */
const CHARS_FOR_BYTES = [0, 2, 3, 5, 6, 7, 9, 10, 11] as const;

/** Inverse of CHARS_FOR_BYTES: bytes for a block of n characters, or -1 when n is no valid block size. */
const BYTES_FOR_CHARS: readonly number[] = Array.from({ length: FULL_BLOCK_CHARS + 1 }, (_, chars) =>
  CHARS_FOR_BYTES.indexOf(chars as (typeof CHARS_FOR_BYTES)[number]),
);

const DIGIT_VALUE: ReadonlyMap<string, bigint> = new Map(
  Array.from(BASE58_ALPHABET, (char, index) => [char, BigInt(index)] as const),
);

/**
 * CryptoNote block-wise base58 (not Bitcoin's whole-number base58).
 *
 * Layout: the input is cut into 8-byte blocks from offset 0; the last block may hold k = 1..7 bytes.
 * Each block is read as a big-endian integer and written as a fixed number of digits, most
 * significant first, left-padded with '1' (digit 0): 8 bytes → 11 chars, k bytes → CHARS_FOR_BYTES[k].
 * Fixed widths make the text length a function of the byte length, which is why an address has an
 * exact length.
 */
export function encodeBase58(bytes: Uint8Array): string {
  let text = '';
  for (let offset = 0; offset < bytes.length; offset += FULL_BLOCK_BYTES) {
    const block = bytes.subarray(offset, Math.min(offset + FULL_BLOCK_BYTES, bytes.length));
    text += encodeBlock(block);
  }
  return text;
}

function encodeBlock(block: Uint8Array): string {
  let value = 0n;
  for (const byte of block) value = (value << 8n) | BigInt(byte);
  const width = CHARS_FOR_BYTES[block.length] ?? FULL_BLOCK_CHARS;
  const digits: string[] = new Array<string>(width).fill(BASE58_ALPHABET[0]!);
  for (let position = width - 1; value > 0n; position--) {
    digits[position] = BASE58_ALPHABET[Number(value % 58n)]!;
    value /= 58n;
  }
  return digits.join('');
}

/**
 * Reverses `encodeBase58`. Checks, in this order, so the first error is the most useful one:
 * every character is in the alphabet (BAD_CHARACTER), the final block has a valid length
 * (BAD_BLOCK_SIZE: a remainder of 1, 4 or 8 characters), and each block's value fits its byte size
 * (BLOCK_OVERFLOW: ≥ 2^64 for a full block, ≥ 2^(8k) for a partial one).
 */
export function decodeBase58(text: string): Uint8Array {
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (!DIGIT_VALUE.has(char)) {
      throw new Base58Error('BAD_CHARACTER', `invalid character '${char}' at position ${index + 1}`, {
        character: char,
        position: index + 1,
      });
    }
  }
  const fullBlocks = Math.floor(text.length / FULL_BLOCK_CHARS);
  const lastBlockChars = text.length % FULL_BLOCK_CHARS;
  const lastBlockBytes = BYTES_FOR_CHARS[lastBlockChars] ?? -1;
  if (lastBlockBytes < 0) {
    throw new Base58Error(
      'BAD_BLOCK_SIZE',
      `invalid base58 length ${text.length}: a final block of ${lastBlockChars} characters is impossible`,
      { length: text.length, lastBlockChars },
    );
  }
  const bytes = new Uint8Array(fullBlocks * FULL_BLOCK_BYTES + lastBlockBytes);
  const blockCount = fullBlocks + (lastBlockChars > 0 ? 1 : 0);
  for (let blockIndex = 0; blockIndex < blockCount; blockIndex++) {
    const start = blockIndex * FULL_BLOCK_CHARS;
    const chars = text.slice(start, start + FULL_BLOCK_CHARS);
    const byteCount = BYTES_FOR_CHARS[chars.length]!;
    decodeBlockInto(chars, byteCount, blockIndex, bytes.subarray(blockIndex * FULL_BLOCK_BYTES));
  }
  return bytes;
}

function decodeBlockInto(chars: string, byteCount: number, blockIndex: number, out: Uint8Array): void {
  let value = 0n;
  for (const char of chars) value = value * 58n + DIGIT_VALUE.get(char)!;
  if (value >> BigInt(8 * byteCount) !== 0n) {
    throw new Base58Error(
      'BLOCK_OVERFLOW',
      `base58 block ${blockIndex} ('${chars}') does not fit in ${byteCount} bytes`,
      { blockIndex, block: chars, byteCount },
    );
  }
  for (let position = byteCount - 1; position >= 0; position--) {
    out[position] = Number(value & 0xffn);
    value >>= 8n;
  }
}
