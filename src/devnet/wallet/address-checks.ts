import { AddressError, type DecodedAddress, decodeAddress } from '../../fuego/address.js';
import { WalletRpcError } from './wallet-errors.js';

/** 64 hex digits: how walletd's parsers want a key, a hash or a payment id. */
export const HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

/** Any valid address (standard or integrated); anything else is 11 "Invalid address". */
export function decodeWalletAddress(address: string): DecodedAddress {
  try {
    return decodeAddress(address);
  } catch (cause) {
    if (cause instanceof AddressError) throw new WalletRpcError('BAD_ADDRESS');
    throw cause;
  }
}

/** A standard address: an integrated one is "Invalid address" to walletd's address checks too. */
export function decodeStandardAddress(address: string): DecodedAddress {
  const decoded = decodeWalletAddress(address);
  if (decoded.type !== 'standard') throw new WalletRpcError('BAD_ADDRESS');
  return decoded;
}
