import type { Redis } from 'ioredis';
import { payoutRunnerOptionsFrom } from '../../../src/app/money-options.js';
import { payoutStoresOn } from '../../../src/app/money-services.js';
import { parseConfig } from '../../../src/config/load-config.js';
import {
  PayoutRunner,
  type PayoutRunnerModules,
  type PayoutRunnerOptions,
} from '../../../src/leader/payouts/payout-runner.js';

// No vitest import here: the SIGKILL crash child (a plain node process) builds its runner with it.

/**
 * A payout runner on `redis` under `keyPrefix` with the config's defaults (as the leader maps
 * them), `overrides` on top, and its stores on the same Redis (by default one that needs no
 * replica: its AOF must be fsynced before each reply, as `startTestRedis({ appendOnly: true })`'s is).
 */
export function payoutRunnerFor(
  redis: Redis,
  keyPrefix: string,
  modules: Omit<PayoutRunnerModules, 'journal' | 'balances' | 'watch' | 'durability'>,
  overrides: Partial<PayoutRunnerOptions> = {},
  durability: { readonly replicas: number; readonly timeoutMs: number } = { replicas: 0, timeoutMs: 1_000 },
): PayoutRunner {
  return new PayoutRunner(
    { ...payoutRunnerOptionsFrom(parseConfig({}).payments, keyPrefix), ...overrides },
    {
      ...modules,
      ...payoutStoresOn(redis, keyPrefix, durability, modules.clock),
    },
  );
}

/**
 * A runner that pays fundThreeMiners' miners (1-coin minimum) in one batch, charging them
 * `networkFeeAtomic` between them (feePaidBy "miners"), with `overrides` on top.
 */
export function threeMinersPayFeeRunner(
  redis: Redis,
  keyPrefix: string,
  modules: Omit<PayoutRunnerModules, 'journal' | 'balances' | 'watch' | 'durability'>,
  networkFeeAtomic: bigint,
  overrides: Partial<PayoutRunnerOptions> = {},
): PayoutRunner {
  return payoutRunnerFor(redis, keyPrefix, modules, {
    minPayoutAtomic: 10_000_000n,
    feePaidBy: 'miners',
    networkFeeAtomic,
    maxTransfersPerTransaction: 3,
    ...overrides,
  });
}
