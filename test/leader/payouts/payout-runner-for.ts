import type { Redis } from 'ioredis';
import { payoutRunnerOptionsFrom } from '../../../src/app/money-options.js';
import { parseConfig } from '../../../src/config/load-config.js';
import {
  PayoutRunner,
  type PayoutRunnerModules,
  type PayoutRunnerOptions,
} from '../../../src/leader/payouts/payout-runner.js';
import { RedisBalances } from '../../../src/store/balances-store.js';
import { PayoutStore } from '../../../src/store/payout-store.js';

// No vitest import here: the SIGKILL crash child (a plain node process) builds its runner with it.

/**
 * A payout runner on `redis` under `keyPrefix` with the config's defaults (as the leader maps
 * them), `overrides` on top, and its journal and balances on the same Redis.
 */
export function payoutRunnerFor(
  redis: Redis,
  keyPrefix: string,
  modules: Omit<PayoutRunnerModules, 'journal' | 'balances'>,
  overrides: Partial<PayoutRunnerOptions> = {},
): PayoutRunner {
  const stores = modules.clock ? { redis, clock: modules.clock } : { redis };
  return new PayoutRunner(
    { ...payoutRunnerOptionsFrom(parseConfig({}).payments), ...overrides },
    {
      ...modules,
      journal: new PayoutStore({ keyPrefix }, stores),
      balances: new RedisBalances({ keyPrefix }, stores),
    },
  );
}
