import { controlServerOptionsFrom } from '../../src/app/control-options.js';
import {
  poolBackendOptionsFrom,
  stratumPortsFrom,
  stratumServerOptionsFrom,
} from '../../src/app/stratum-options.js';
import { configSchema, type PoolConfig } from '../../src/config/schema.js';
import type { BanPolicyOptions } from '../../src/pool/ban-policy.js';
import type { PoolBackendOptions } from '../../src/pool/pool-backend.js';
import type { ControlServerOptions } from '../../src/servers/control/control-server.js';
import type {
  StratumLimits,
  StratumPortOptions,
  StratumServerOptions,
} from '../../src/servers/stratum/stratum-options.js';

/**
 * The options of the classes as a pool with an empty config file gives them: the real schema's
 * defaults, mapped by the same src/app functions as in production. Tests override what they test.
 */
export const DEFAULT_CONFIG: Readonly<PoolConfig> = configSchema.parse({});

export const DEFAULT_POOL_BACKEND_OPTIONS: PoolBackendOptions = poolBackendOptionsFrom(DEFAULT_CONFIG);

export const DEFAULT_BAN_POLICY_OPTIONS: BanPolicyOptions = DEFAULT_POOL_BACKEND_OPTIONS.ban;

export const DEFAULT_STRATUM_LIMITS: StratumLimits = stratumServerOptionsFrom(DEFAULT_CONFIG, []).limits;

/** A port as the config would give it: what is not named takes the schema's default. */
export function stratumPort(
  port: Pick<StratumPortOptions, 'port' | 'difficulty'> & Partial<StratumPortOptions>,
): StratumPortOptions {
  const { tls, ...rest } = port;
  const config = configSchema.parse({
    stratum: { ports: [{ port: rest.port, difficulty: rest.difficulty }] },
  });
  const [defaults] = stratumPortsFrom(config, undefined);
  return { ...defaults!, ...rest, ...(tls === undefined ? {} : { tls }) };
}

/** Stratum server options from the config defaults, with these ports and limits over them. */
export function stratumServerOptions(
  overrides: {
    readonly ports?: ReadonlyArray<Parameters<typeof stratumPort>[0]>;
    readonly limits?: Partial<StratumLimits>;
    readonly ipv6PrefixLength?: number;
  } = {},
): StratumServerOptions {
  const options = stratumServerOptionsFrom(DEFAULT_CONFIG, (overrides.ports ?? []).map(stratumPort));
  return {
    ...options,
    limits: { ...options.limits, ...overrides.limits },
    ...(overrides.ipv6PrefixLength === undefined ? {} : { ipv6PrefixLength: overrides.ipv6PrefixLength }),
  };
}

/** Control server options from the config defaults, at this socket path, with these over them. */
export function controlServerOptions(
  options: Pick<ControlServerOptions, 'socketPath'> & Partial<ControlServerOptions>,
): ControlServerOptions {
  return { ...controlServerOptionsFrom(DEFAULT_CONFIG), ...options };
}

/** The share ledger's tuning as the `store` section's defaults give it. */
export const DEFAULT_STORE_OPTIONS: PoolConfig['store'] = DEFAULT_CONFIG.store;

/** `store.maxWorkersPerMiner` as the schema defaults it. */
export const DEFAULT_MAX_WORKERS_PER_MINER = DEFAULT_CONFIG.store.maxWorkersPerMiner;
