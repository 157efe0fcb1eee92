import { ConfigError, loadConfigFile } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import { AddressError, decodeAddress } from '../fuego/address.js';

/** The config's Fuego addresses other than pool.address, and whether each must be standard. */
const ADDRESS_KEYS: ReadonlyArray<{
  readonly key: string;
  readonly of: (config: Readonly<PoolConfig>) => string | undefined;
  readonly standardOnly: boolean;
}> = [
  { key: 'payments.feeAddress', of: (c) => c.payments.feeAddress, standardOnly: false },
  // walletd pays change only to an address of its own container: a standard one.
  { key: 'payments.payouts.changeAddress', of: (c) => c.payments.payouts.changeAddress, standardOnly: true },
];

/**
 * Checks the config's Fuego addresses (the config itself only knows they are strings: decoding an
 * address is the coin's business, src/fuego). Throws CONFIG_INVALID naming every bad key.
 */
export function checkConfigAddresses(config: Readonly<PoolConfig>): void {
  const issues: string[] = [];
  for (const { key, of, standardOnly } of ADDRESS_KEYS) {
    const address = of(config);
    if (address === undefined) continue;
    try {
      const decoded = decodeAddress(address);
      if (standardOnly && decoded.type !== 'standard') {
        issues.push(`${key}: must be a standard Fuego address (not integrated)`);
      }
    } catch (error) {
      if (!(error instanceof AddressError)) throw error;
      issues.push(`${key}: is not a valid Fuego address (${error.code})`);
    }
  }
  if (issues.length > 0) {
    throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  ${issues.join('\n  ')}`, { issues });
  }
}

/** Reads, validates and freezes a config file, its addresses included (what every command runs on). */
export function loadPoolConfig(path: string | undefined): Readonly<PoolConfig> {
  const config = loadConfigFile(path);
  checkConfigAddresses(config);
  return config;
}
