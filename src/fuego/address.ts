import { FuegoPoolError } from '../errors.js';
import { Base58Error, decodeBase58, encodeBase58 } from './base58.js';
import { isValidEd25519Point } from './ed25519-point.js';
import { bytesToHex, hexToBytes } from './hex.js';
import { cnFastHash } from './keccak.js';

export type AddressErrorCode =
  | 'WRONG_LENGTH'
  | 'BAD_CHARACTER'
  | 'BAD_ENCODING'
  | 'BAD_CHECKSUM'
  | 'WRONG_PREFIX'
  | 'BAD_PAYMENT_ID'
  | 'BAD_KEY';

/** Text that is not a Fuego address, or keys/payment id that cannot make one. */
export class AddressError extends FuegoPoolError<AddressErrorCode> {}

/** Mainnet and testnet share this prefix; its varint is e7 80 6b, which makes every address start "fire". */
export const FUEGO_ADDRESS_PREFIX = 1753191;
const FUEGO_PREFIX_VARINT = Uint8Array.of(0xe7, 0x80, 0x6b);

export const STANDARD_ADDRESS_LENGTH = 98;
export const INTEGRATED_ADDRESS_LENGTH = 186;

const KEY_BYTES = 32;
const CHECKSUM_BYTES = 4;
/** The payment id travels as its 64 ASCII hex characters, not as 32 raw bytes (TurtleCoin style). */
const PAYMENT_ID_CHARS = 64;
/** Longer texts are rejected unread; still room to recognise other coins' (integrated) addresses. */
const MAX_DECODED_TEXT_LENGTH = 256;
const HEX64_PATTERN = /^[0-9a-fA-F]{64}$/;

export interface AddressKeys {
  /** 64 lowercase hex characters. */
  readonly spendPublicKey: string;
  readonly viewPublicKey: string;
}

export interface StandardAddress extends AddressKeys {
  readonly type: 'standard';
  readonly prefix: number;
}

export interface IntegratedAddress extends AddressKeys {
  readonly type: 'integrated';
  readonly prefix: number;
  /** 64 lowercase hex characters. */
  readonly paymentId: string;
}

export type DecodedAddress = StandardAddress | IntegratedAddress;

export interface AddressKeyOptions {
  /** Require both keys to be ed25519 points, as the daemon does (default true). */
  readonly checkKeys?: boolean;
}

/**
 * Decodes and fully validates a Fuego address. Errors are checked in the order that gives the most
 * useful message: characters, length (or another coin's prefix, when a wrong-length text is a
 * well-formed address of another network), base58 blocks, checksum, prefix, payment id, keys.
 *
 * Decoded layout (offsets in the base58-decoded bytes):
 *   standard   (71 B): 0..2 prefix varint e7 80 6b | 3..34 spend key | 35..66 view key | 67..70 checksum
 *   integrated (135 B): 0..2 prefix | 3..66 payment id as ASCII hex | 67..98 spend | 99..130 view | 131..134 checksum
 * checksum = keccak(bytes before it)[0..3].
 */
export function decodeAddress(text: string, options: AddressKeyOptions = {}): DecodedAddress {
  // Miner logins are untrusted: do no base58 work on text far longer than any address.
  if (typeof text !== 'string' || text.length > MAX_DECODED_TEXT_LENGTH) {
    throw wrongLength(typeof text === 'string' ? text.length : 0);
  }
  let raw: Uint8Array | undefined;
  let encodingError: Base58Error | undefined;
  try {
    raw = decodeBase58(text);
  } catch (error) {
    if (!(error instanceof Base58Error)) throw error;
    if (error.code === 'BAD_CHARACTER') {
      throw new AddressError('BAD_CHARACTER', error.message, { ...error.data }, { cause: error });
    }
    encodingError = error;
  }

  if (text.length !== STANDARD_ADDRESS_LENGTH && text.length !== INTEGRATED_ADDRESS_LENGTH) {
    const foreignPrefix = raw === undefined ? undefined : foreignNetworkPrefix(raw);
    if (foreignPrefix !== undefined) throw wrongPrefix(foreignPrefix);
    throw wrongLength(text.length);
  }
  if (raw === undefined) {
    const message = encodingError?.message ?? 'invalid base58';
    throw new AddressError('BAD_ENCODING', message, { ...encodingError?.data }, { cause: encodingError });
  }

  const body = raw.subarray(0, raw.length - CHECKSUM_BYTES);
  if (!checksumMatches(raw)) {
    throw new AddressError('BAD_CHECKSUM', 'checksum mismatch', {
      expected: bytesToHex(cnFastHash(body).subarray(0, CHECKSUM_BYTES)),
      found: bytesToHex(raw.subarray(raw.length - CHECKSUM_BYTES)),
    });
  }
  const prefix = readPrefixVarint(body);
  if (prefix === undefined) {
    throw new AddressError('BAD_ENCODING', 'address prefix is not a valid varint', {});
  }
  if (prefix.value !== BigInt(FUEGO_ADDRESS_PREFIX)) throw wrongPrefix(prefix.value);

  const payload = body.subarray(prefix.length);
  const isIntegrated = text.length === INTEGRATED_ADDRESS_LENGTH;
  const expectedPayload = (isIntegrated ? PAYMENT_ID_CHARS : 0) + 2 * KEY_BYTES;
  if (payload.length !== expectedPayload) {
    const message = `payload is ${payload.length} bytes, expected ${expectedPayload}`;
    throw new AddressError('BAD_ENCODING', message, { payloadLength: payload.length });
  }

  let paymentId: string | undefined;
  let keyOffset = 0;
  if (isIntegrated) {
    const ascii = Buffer.from(payload.subarray(0, PAYMENT_ID_CHARS)).toString('latin1');
    if (!HEX64_PATTERN.test(ascii)) {
      throw new AddressError('BAD_PAYMENT_ID', 'payment id inside the address is not 64 hex characters', {});
    }
    paymentId = ascii.toLowerCase();
    keyOffset = PAYMENT_ID_CHARS;
  }
  const spendKey = payload.subarray(keyOffset, keyOffset + KEY_BYTES);
  const viewKey = payload.subarray(keyOffset + KEY_BYTES, keyOffset + 2 * KEY_BYTES);
  if (options.checkKeys !== false) {
    assertPoint(spendKey, 'spend');
    assertPoint(viewKey, 'view');
  }
  const keys = { spendPublicKey: bytesToHex(spendKey), viewPublicKey: bytesToHex(viewKey) };
  return paymentId === undefined
    ? { type: 'standard', prefix: FUEGO_ADDRESS_PREFIX, ...keys }
    : { type: 'integrated', prefix: FUEGO_ADDRESS_PREFIX, paymentId, ...keys };
}

/** The 98-character standard address of a key pair: base58(e7 80 6b ‖ spend ‖ view ‖ checksum). */
export function encodeAddress(keys: AddressKeys, options: AddressKeyOptions = {}): string {
  return encodeWithPayload([
    keyBytes(keys.spendPublicKey, 'spend', options),
    keyBytes(keys.viewPublicKey, 'view', options),
  ]);
}

/**
 * The 186-character integrated address: base58(e7 80 6b ‖ payment id as 64 ASCII hex chars ‖ spend ‖
 * view ‖ checksum). The payment id is written in lowercase, so an address decoded from uppercase
 * hex re-encodes to a different (equivalent) text.
 */
export function encodeIntegratedAddress(
  address: AddressKeys & { readonly paymentId: string },
  options: AddressKeyOptions = {},
): string {
  if (!HEX64_PATTERN.test(address.paymentId)) {
    throw new AddressError('BAD_PAYMENT_ID', 'payment id must be 64 hex characters', {
      length: address.paymentId.length,
    });
  }
  return encodeWithPayload([
    new Uint8Array(Buffer.from(address.paymentId.toLowerCase(), 'latin1')),
    keyBytes(address.spendPublicKey, 'spend', options),
    keyBytes(address.viewPublicKey, 'view', options),
  ]);
}

function encodeWithPayload(parts: readonly Uint8Array[]): string {
  const body = Buffer.concat([FUEGO_PREFIX_VARINT, ...parts]);
  const checksum = cnFastHash(body).subarray(0, CHECKSUM_BYTES);
  return encodeBase58(Buffer.concat([body, checksum]));
}

function keyBytes(hex: string, which: 'spend' | 'view', options: AddressKeyOptions): Uint8Array {
  if (!HEX64_PATTERN.test(hex)) {
    throw new AddressError('BAD_KEY', `${which} public key must be 64 hex characters`, { key: which });
  }
  const bytes = hexToBytes(hex);
  if (options.checkKeys !== false) assertPoint(bytes, which);
  return bytes;
}

function assertPoint(key: Uint8Array, which: 'spend' | 'view'): void {
  if (!isValidEd25519Point(key)) {
    throw new AddressError('BAD_KEY', `${which} public key is not a valid ed25519 point`, {
      key: which,
      value: bytesToHex(key),
    });
  }
}

function checksumMatches(raw: Uint8Array): boolean {
  if (raw.length <= CHECKSUM_BYTES) return false;
  const body = raw.subarray(0, raw.length - CHECKSUM_BYTES);
  const expected = cnFastHash(body);
  for (let index = 0; index < CHECKSUM_BYTES; index++) {
    if (expected[index] !== raw[body.length + index]) return false;
  }
  return true;
}

/** The prefix of a checksum-valid address of another network, so a Monero address gets WRONG_PREFIX. */
function foreignNetworkPrefix(raw: Uint8Array): bigint | undefined {
  if (!checksumMatches(raw)) return undefined;
  const prefix = readPrefixVarint(raw.subarray(0, raw.length - CHECKSUM_BYTES));
  if (prefix === undefined || prefix.value === BigInt(FUEGO_ADDRESS_PREFIX)) return undefined;
  return prefix.value;
}

/** LEB128 varint at offset 0, at most 64 bits; undefined when unterminated or too long. */
function readPrefixVarint(bytes: Uint8Array): { value: bigint; length: number } | undefined {
  let value = 0n;
  for (let index = 0; index < bytes.length && index < 10; index++) {
    const byte = bytes[index]!;
    value |= BigInt(byte & 0x7f) << BigInt(7 * index);
    if ((byte & 0x80) === 0) return value >> 64n === 0n ? { value, length: index + 1 } : undefined;
  }
  return undefined;
}

function wrongLength(length: number): AddressError {
  return new AddressError(
    'WRONG_LENGTH',
    `address has ${length} characters; a Fuego address has ${STANDARD_ADDRESS_LENGTH} (standard) or ${INTEGRATED_ADDRESS_LENGTH} (integrated)`,
    { length },
  );
}

function wrongPrefix(prefix: bigint): AddressError {
  return new AddressError('WRONG_PREFIX', `prefix ${prefix} is not Fuego's ${FUEGO_ADDRESS_PREFIX}`, {
    prefix: prefix.toString(),
  });
}
