import { decodeAddress, encodeAddress } from '../../src/fuego/address.js';

/**
 * An address with a right checksum whose keys are not on the curve, so only the costly (~1.4 ms)
 * ed25519 check refuses it: the `n`-th such address found.
 */
export function addressWithBadKey(n = 0): string {
  let found = 0;
  for (let k = 0; k < 256; k++) {
    const key = `${k.toString(16).padStart(2, '0')}${'ab'.repeat(31)}`;
    const address = encodeAddress({ spendPublicKey: key, viewPublicKey: key }, { checkKeys: false });
    try {
      decodeAddress(address);
    } catch {
      if (found++ === n) return address;
    }
  }
  throw new Error('no bad key found');
}
