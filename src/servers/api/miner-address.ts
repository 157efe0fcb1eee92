import { AddressError, decodeAddress } from '../../fuego/address.js';
import { ApiError } from './api-errors.js';

/** A miner address from a URL: must decode as a Fuego address (standard or integrated). */
export function parseMinerAddress(text: string): string {
  try {
    decodeAddress(text);
  } catch (error) {
    if (error instanceof AddressError)
      throw new ApiError('INVALID_ADDRESS', error.code, { reason: error.code });
    throw error;
  }
  return text;
}
