import { BinaryWriter } from '../../fuego/binary-writer.js';
import { hexToBytes } from '../../fuego/hex.js';
import { cnFastHash } from '../../fuego/keccak.js';

/**
 * The devnet does not do CryptoNote stealth addressing. An output's one-time key is a deterministic
 * 32-byte value, keccak("fuego-devnet-output" ‖ tx public key ‖ varint(index) ‖ spend key ‖ view key),
 * and the chain keeps a record of which address each key pays (`OutputOwners`), which is how the
 * simulated wallet finds its outputs. Keys are therefore not valid curve points and nothing can be
 * proved about them; only the devnet's own wallet can "see" devnet outputs.
 */
const OUTPUT_DOMAIN = new TextEncoder().encode('fuego-devnet-output');
const TX_KEY_DOMAIN = new TextEncoder().encode('fuego-devnet-tx-key');

export interface AddressKeysHex {
  readonly spendPublicKey: string;
  readonly viewPublicKey: string;
}

export function deriveOutputKey(txPublicKey: Uint8Array, index: number, keys: AddressKeysHex): Uint8Array {
  return cnFastHash(
    new BinaryWriter(160)
      .writeBytes(OUTPUT_DOMAIN)
      .writeHash32(txPublicKey)
      .writeVarint(index)
      .writeHash32(hexToBytes(keys.spendPublicKey))
      .writeHash32(hexToBytes(keys.viewPublicKey))
      .toBytes(),
  );
}

/** A fresh per-transaction "public key": keccak of a domain tag and a serial number. */
export function deriveTxPublicKey(serial: bigint, salt: Uint8Array): Uint8Array {
  return cnFastHash(
    new BinaryWriter(96).writeBytes(TX_KEY_DOMAIN).writeVarint(serial).writeBytes(salt).toBytes(),
  );
}

/** Output key (hex) -> the address it pays; filled by whoever builds an output (templates, wallet). */
export class OutputOwners {
  readonly #owners = new Map<string, string>();

  record(keyHex: string, address: string): void {
    this.#owners.set(keyHex, address);
  }

  ownerOf(keyHex: string): string | undefined {
    return this.#owners.get(keyHex);
  }

  entries(): IterableIterator<[string, string]> {
    return this.#owners.entries();
  }
}
