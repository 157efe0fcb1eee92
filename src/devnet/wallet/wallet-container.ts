import { AddressError, decodeAddress, encodeAddress, encodeIntegratedAddress } from '../../fuego/address.js';
import { isCanonicalScalar, reduceScalar } from '../../fuego/ed25519-scalar.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import { decodeStandardAddress, decodeWalletAddress, HASH_PATTERN } from './address-checks.js';
import { keyPairFromSeed, publicKeyOf } from './ed25519-keys.js';
import { type WalletAppErrorName, WalletInvalidRequest, WalletRpcError } from './wallet-errors.js';
import { WalletParams } from './wallet-params.js';

interface WalletAddress {
  readonly address: string;
  readonly spendPublicKey: string;
  /** Absent for a view-only (tracking) address. */
  readonly spendSecretKey: string | undefined;
}

/** Which errors a missing or foreign change (or fusion destination) address gets. */
export interface ChangeAddressErrors {
  readonly required: WalletAppErrorName;
  readonly notFound: WalletAppErrorName;
}

const CHANGE_ADDRESS_ERRORS: ChangeAddressErrors = {
  required: 'CHANGE_ADDRESS_REQUIRED',
  notFound: 'CHANGE_ADDRESS_NOT_FOUND',
};

/**
 * The container: one view key pair and the spend keys of its addresses (deterministic from the
 * seed), with walletd's address and key methods (params in, result out).
 */
export class WalletContainer {
  readonly #seed: string;
  readonly #viewSecretKey: string;
  readonly #viewPublicKey: string;
  readonly #addresses: WalletAddress[] = [];
  #keySerial = 0;

  constructor(seed: string, addressCount: number) {
    this.#seed = seed;
    const view = keyPairFromSeed(new TextEncoder().encode(`${seed}/view`));
    this.#viewSecretKey = view.secretKey;
    this.#viewPublicKey = view.publicKey;
    for (let i = 0; i < Math.max(1, addressCount); i++) this.#addNewAddress();
  }

  /** Standard addresses of the container, in creation order. */
  get addresses(): string[] {
    return this.#addresses.map((a) => a.address);
  }

  get addressCount(): number {
    return this.#addresses.length;
  }

  has(address: string): boolean {
    return this.#addresses.some((a) => a.address === address);
  }

  /** Decoded keys of one of this wallet's addresses (for the devnet's own miner). */
  keysOf(address: string): { spendPublicKey: string; viewPublicKey: string } {
    return { spendPublicKey: decodeAddress(address).spendPublicKey, viewPublicKey: this.#viewPublicKey };
  }

  /** A source address of a send or fusion: a standard address of this container, else "Invalid address". */
  requireOwnSource(address: string): void {
    decodeStandardAddress(address);
    if (!this.has(address)) throw new WalletRpcError('BAD_ADDRESS');
  }

  /**
   * walletd's rules for where change (or a fusion's sum) goes: required with several candidate
   * sources, and must be a wallet address; by default the only address, or the only source.
   */
  changeAddressFor(
    changeAddress: string,
    sources: readonly string[],
    errors: ChangeAddressErrors = CHANGE_ADDRESS_ERRORS,
  ): string {
    if (changeAddress === '') {
      if (sources.length > 1 || (sources.length === 0 && this.#addresses.length > 1)) {
        throw new WalletRpcError(errors.required);
      }
      return sources[0] ?? this.#addresses[0]!.address;
    }
    if (!this.has(changeAddress)) throw new WalletRpcError(errors.notFound);
    return changeAddress;
  }

  // ---- methods (params in, result out) -------------------------------------------------------

  getAddresses(): unknown {
    return { addresses: this.addresses };
  }

  createAddress(params: unknown): unknown {
    const p = new WalletParams(params);
    const secret = p.optionalString('spendSecretKey');
    const publicKey = p.optionalString('spendPublicKey');
    if (secret !== undefined && publicKey !== undefined) throw new WalletRpcError('WRONG_PARAMETERS');
    if (secret !== undefined) return { address: this.#importSecret(secret) };
    if (publicKey !== undefined) return { address: this.#importPublic(publicKey) };
    return { address: this.#addNewAddress() };
  }

  createAddressList(params: unknown): unknown {
    const p = new WalletParams(params);
    const secrets = p.optionalStringArray('spendSecretKeys');
    if (secrets === undefined) throw new WalletInvalidRequest('missing spendSecretKeys');
    p.optionalBoolean('reset');
    return { addresses: secrets.map((secret) => this.#importSecret(secret)) };
  }

  deleteAddress(params: unknown): unknown {
    const address = new WalletParams(params).string('address');
    this.#addresses.splice(this.#indexOfAddress(address), 1);
    return {};
  }

  getSpendKeys(params: unknown): unknown {
    const address = new WalletParams(params).string('address');
    const entry = this.#addresses[this.#indexOfAddress(address)]!;
    return { spendPublicKey: entry.spendPublicKey, spendSecretKey: entry.spendSecretKey ?? '0'.repeat(64) };
  }

  getViewKey(): unknown {
    return { privateViewKey: this.#viewSecretKey };
  }

  createIntegrated(params: unknown): unknown {
    const p = new WalletParams(params);
    const address = p.string('address');
    const paymentId = p.string('payment_id');
    const decoded = decodeWalletAddress(address);
    if (decoded.type !== 'standard') throw new WalletRpcError('BAD_ADDRESS');
    if (!HASH_PATTERN.test(paymentId)) throw new WalletRpcError('WRONG_PAYMENT_ID_FORMAT');
    return { integrated_address: encodeIntegratedAddress({ ...decoded, paymentId }) };
  }

  splitIntegrated(params: unknown): unknown {
    const decoded = decodeWalletAddress(new WalletParams(params).string('integrated_address'));
    if (decoded.type !== 'integrated') throw new WalletRpcError('BAD_ADDRESS');
    return { address: encodeAddress(decoded), payment_id: decoded.paymentId };
  }

  // ---- internals -----------------------------------------------------------------------------

  #addNewAddress(): string {
    const pair = keyPairFromSeed(new TextEncoder().encode(`${this.#seed}/spend/${this.#keySerial++}`));
    return this.#register(pair.publicKey, pair.secretKey);
  }

  #importSecret(secretHex: string): string {
    if (!HASH_PATTERN.test(secretHex) || !isCanonicalScalar(hexToBytes(secretHex))) {
      throw new WalletRpcError('WRONG_KEY_FORMAT');
    }
    const secret = reduceScalar(hexToBytes(secretHex));
    return this.#register(bytesToHex(publicKeyOf(secret)), bytesToHex(secret));
  }

  #importPublic(publicHex: string): string {
    if (!HASH_PATTERN.test(publicHex)) throw new WalletRpcError('WRONG_KEY_FORMAT');
    try {
      return this.#register(publicHex.toLowerCase(), undefined);
    } catch (error) {
      if (error instanceof AddressError) throw new WalletRpcError('WRONG_KEY_FORMAT');
      throw error;
    }
  }

  #register(spendPublicKey: string, spendSecretKey: string | undefined): string {
    const address = encodeAddress({ spendPublicKey, viewPublicKey: this.#viewPublicKey });
    if (this.has(address)) throw new WalletRpcError('ADDRESS_ALREADY_EXISTS');
    this.#addresses.push({ address, spendPublicKey, spendSecretKey });
    return address;
  }

  #indexOfAddress(address: string): number {
    decodeWalletAddress(address);
    const index = this.#addresses.findIndex((a) => a.address === address);
    if (index < 0) throw new WalletRpcError('WALLET_NOT_FOUND');
    return index;
  }
}
