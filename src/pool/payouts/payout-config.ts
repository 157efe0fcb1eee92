import { ConfigError, loadConfigFile, parseConfig } from '../../config/load-config.js';
import type { PaymentsConfig, PayoutConfig } from '../../config/payments-schema.js';
import type { PoolConfig } from '../../config/schema.js';
import { parseCoins } from '../../fuego/money.js';

export {
  type PaymentsConfig,
  type PayoutConfig,
  paymentsConfigSchema,
  payoutConfigSchema,
} from '../../config/payments-schema.js';

/** Validates a `payments` section on its own (errors name `payments.<key>`). */
export function parsePaymentsConfig(input: unknown): Readonly<PaymentsConfig> {
  return parseConfig({ payments: input ?? {} }).payments;
}

export function minPayoutAtomicOf(config: PayoutConfig): bigint {
  return parseCoins(config.minPayoutCoins);
}

/** The whole validated config file, and its `payments` section. */
export function loadPaymentsConfigFile(path: string): {
  pool: Readonly<PoolConfig>;
  payments: Readonly<PaymentsConfig>;
} {
  const config = loadConfigFile(path);
  return { pool: config, payments: config.payments };
}

export { ConfigError };
