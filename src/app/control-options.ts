import type { PoolConfig } from '../config/schema.js';
import type { ControlServerOptions } from '../servers/control/control-server.js';
import { POOL_VERSION } from './pool-version.js';

/**
 * The control socket's options from the validated `control` section; every default is the config
 * schema's. The bounds below are fixed tuning, not configuration.
 */
export function controlServerOptionsFrom(
  config: Pick<PoolConfig, 'control' | 'stratum'>,
): ControlServerOptions {
  const { control, stratum } = config;
  return {
    banPrefixLengths: [stratum.ipv6PrefixLength, stratum.limits.ipv6AggregatePrefixLength],
    socketPath: control.socketPath,
    hashrateWindowMs: control.hashrateWindowMs,
    version: POOL_VERSION,
    heartbeatMs: 1_000,
    maxConnections: 16,
    maxInFlightPerConnection: 8,
  };
}
