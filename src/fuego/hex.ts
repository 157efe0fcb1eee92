import { CodecError } from './errors.js';

const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})*$/;

/** Decodes hex (either case, even length, no prefix); anything else is a `BAD_HEX` CodecError. */
export function hexToBytes(hex: string): Uint8Array {
  if (!HEX_PATTERN.test(hex)) {
    const reason = hex.length % 2 === 1 ? 'odd length' : 'non-hex character';
    throw new CodecError('BAD_HEX', `invalid hex string (${reason})`, { length: hex.length });
  }
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

/** Two lowercase hex digits per byte value. */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Up to this many bytes, a table walk beats making a Buffer view (job ids: every job of a push). */
const TABLE_HEX_MAX_BYTES = 16;

/** Two lowercase hex digits of one byte (0..255). */
export function byteToHex(byte: number): string {
  return BYTE_HEX[byte & 0xff]!;
}

/** Lowercase hex of `bytes`, the form the daemon and XMRig use. */
export function bytesToHex(bytes: Uint8Array): string {
  if (bytes.length <= TABLE_HEX_MAX_BYTES) {
    let hex = '';
    for (let i = 0; i < bytes.length; i++) hex += BYTE_HEX[bytes[i]!];
    return hex;
  }
  // A Buffer converts in place; any other Uint8Array gets a Buffer view over the same bytes.
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString('hex');
}
