import { FuegoPoolError } from '../errors.js';
import { decodeAddress } from './address.js';
import { Base58Error, decodeBase58, encodeBase58 } from './base58.js';
import { hexToBytes } from './hex.js';
import { cnFastHash } from './keccak.js';
import { checkSignature, SIGNATURE_BYTES } from './signature.js';

export type SignatureTextErrorCode = 'BAD_PREFIX' | 'BAD_ENCODING' | 'TRUNCATED' | 'TOO_LONG';

/**
 * A signature text that is not the 64-byte signature of the wallet's `sign_message`:
 * - BAD_PREFIX: it does not start with "Sig";
 * - TRUNCATED: shorter than a signature. The wallet prints one so when the signature holds a 0
 *   byte (see below); signing again gives another signature;
 * - TOO_LONG: longer than a signature: the wallet's text ran on into memory after it;
 * - BAD_ENCODING: not CryptoNote base58.
 */
export class SignatureTextError extends FuegoPoolError<SignatureTextErrorCode> {}

export const SIGNATURE_TEXT_PREFIX = 'Sig';
/** "Sig" + 88 base58 characters: 64 bytes are 8 full blocks of 11 characters. */
export const SIGNATURE_TEXT_LENGTH = SIGNATURE_TEXT_PREFIX.length + 88;

/**
 * The signature of a `sign_message` text: "Sig" + CryptoNote base58 of the 64 signature bytes.
 *
 * simplewallet (3c32d98d) encodes `std::string(reinterpret_cast<char*>(&sig))`, a copy that stops
 * at the first 0 byte in memory from the signature on: a signature holding a 0 byte is cut short,
 * and one without runs on into the wallet's stack frame, which holds the message hash, the
 * public keys and then the spend and view secret keys (GCC, Fuego's default build). Only the first
 * 91 characters are the signature (base58 works in 8-byte blocks of 11 characters, so they are
 * exactly its 64 bytes); anything longer is refused rather than read, so that a client learns to
 * send no more than that.
 */
export function decodeSignatureText(text: string): Uint8Array {
  if (!text.startsWith(SIGNATURE_TEXT_PREFIX)) {
    throw new SignatureTextError('BAD_PREFIX', `a signature starts with "${SIGNATURE_TEXT_PREFIX}"`);
  }
  if (text.length < SIGNATURE_TEXT_LENGTH) {
    throw new SignatureTextError(
      'TRUNCATED',
      `a signature has ${SIGNATURE_TEXT_LENGTH} characters, this one ${text.length}`,
      { length: text.length },
    );
  }
  if (text.length > SIGNATURE_TEXT_LENGTH) {
    throw new SignatureTextError(
      'TOO_LONG',
      `a signature has ${SIGNATURE_TEXT_LENGTH} characters; only those may be sent`,
      { length: text.length },
    );
  }
  try {
    return decodeBase58(text.slice(SIGNATURE_TEXT_PREFIX.length));
  } catch (error) {
    if (!(error instanceof Base58Error)) throw error;
    throw new SignatureTextError('BAD_ENCODING', error.message, { reason: error.code }, { cause: error });
  }
}

/** "Sig" + base58 of a 64-byte signature (what the wallet would print without its quirk). */
export function encodeSignatureText(signature: Uint8Array): string {
  if (signature.length !== SIGNATURE_BYTES) throw new RangeError('a signature has 64 bytes');
  return SIGNATURE_TEXT_PREFIX + encodeBase58(signature);
}

/** The hash `sign_message` signs: cn_fast_hash of the message's bytes (UTF-8). */
export function messageHash(message: string): Uint8Array {
  return cnFastHash(new TextEncoder().encode(message));
}

/**
 * simplewallet's `verify_signature <message> <address> <signature>`: whether the signature text
 * was made by `sign_message <message>` in the wallet of `address` (its spend key). Throws
 * AddressError for an address that does not decode and SignatureTextError for a text that is not
 * one signature; a well-formed signature that does not match gives false.
 */
export function verifyMessageSignature(message: string, address: string, signatureText: string): boolean {
  const { spendPublicKey } = decodeAddress(address);
  const signature = decodeSignatureText(signatureText);
  return checkSignature(messageHash(message), hexToBytes(spendPublicKey), signature);
}
