import { WalletInvalidRequest } from './wallet-errors.js';

/**
 * Typed reads of walletd request params: a required field that is missing, or any field of the wrong
 * JSON type, is `-32600 Invalid Request` (walletd's serializer rejects the whole request).
 */
export class WalletParams {
  readonly #object: Record<string, unknown>;

  constructor(params: unknown) {
    if (params === undefined || params === null) {
      this.#object = {};
    } else if (typeof params === 'object' && !Array.isArray(params)) {
      this.#object = params as Record<string, unknown>;
    } else {
      throw new WalletInvalidRequest('params must be an object');
    }
  }

  has(key: string): boolean {
    return this.#object[key] !== undefined;
  }

  string(key: string): string {
    const value = this.optionalString(key);
    if (value === undefined) throw new WalletInvalidRequest(`missing ${key}`);
    return value;
  }

  optionalString(key: string): string | undefined {
    const value = this.#object[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new WalletInvalidRequest(`${key} must be a string`);
    return value;
  }

  /** Unsigned integer (safe range). */
  uint(key: string): number {
    const value = this.optionalUint(key);
    if (value === undefined) throw new WalletInvalidRequest(`missing ${key}`);
    return value;
  }

  optionalUint(key: string): number | undefined {
    const value = this.#object[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new WalletInvalidRequest(`${key} must be an unsigned integer`);
    }
    return value;
  }

  optionalBoolean(key: string): boolean | undefined {
    const value = this.#object[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw new WalletInvalidRequest(`${key} must be a boolean`);
    return value;
  }

  optionalStringArray(key: string): string[] | undefined {
    const value = this.#object[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw new WalletInvalidRequest(`${key} must be an array of strings`);
    }
    return value as string[];
  }

  /** `transfers`: array of {address: string, amount: uint, message?: string}. */
  transfers(key: string): { address: string; amount: bigint; message: string }[] {
    const value = this.#object[key];
    if (!Array.isArray(value)) throw new WalletInvalidRequest(`${key} must be an array`);
    return value.map((item) => {
      const entry = new WalletParams(item);
      return {
        address: entry.string('address'),
        amount: BigInt(entry.uint('amount')),
        message: entry.optionalString('message') ?? '',
      };
    });
  }
}
