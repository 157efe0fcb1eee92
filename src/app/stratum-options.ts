import type { PoolConfig } from '../config/schema.js';
import { BAN_WEIGHTS } from '../pool/ban-policy.js';
import type { PoolBackendOptions } from '../pool/pool-backend.js';
import type { StratumPortOptions, StratumServerOptions } from '../servers/stratum/stratum-options.js';

/**
 * The stratum role's options from the validated config: the one place where `pool` and `stratum`
 * are turned into what the pool core and the stratum server take. Every default is the config
 * schema's; the values below are fixed tuning, not configuration.
 */

/** The pool core's tuning that the config does not expose. */
const POOL_BACKEND_TUNING = Object.freeze({
  /** Only when a port gives no start difficulty (the config always gives one). */
  defaultDifficulty: 5000,
  aliasCacheTtlMs: 10 * 60_000,
  aliasNegativeCacheTtlMs: 60_000,
  aliasUnsupportedRetryMs: 10 * 60_000,
  aliasCacheMaxEntries: 10_000,
  broadcastChunkSize: 500,
  broadcastSliceMs: 15,
  addressCacheMaxEntries: 20_000,
  /**
   * At start, the addresses of the miners with a share in the last day (the active-miners index
   * keeps as much) are remembered as checked, 500 per Redis read (address-warmup.ts).
   */
  addressWarmup: Object.freeze({ maxAgeMs: 24 * 3_600_000, pageSize: 500 }),
  /** Peers whose new-address budget is remembered (the least recently seen forget theirs first). */
  newAddressPeersMaxEntries: 100_000,
  proxyJobRefreshMs: 60_000,
  tickIntervalMs: 5_000,
});

/** The stratum server's limits that the config does not expose. */
const STRATUM_LIMITS_TUNING = Object.freeze({
  closeGraceMs: 5_000,
  submitPollMs: 20,
});

export function poolBackendOptionsFrom(config: Readonly<PoolConfig>): PoolBackendOptions {
  const { stratum } = config;
  return {
    ...POOL_BACKEND_TUNING,
    nodeId: config.pool.nodeId,
    jobsPerSession: stratum.jobsPerSession,
    sharedJobs: stratum.sharedJobs,
    staleGraceMs: stratum.staleGraceMs,
    vardiff: stratum.vardiff,
    minLoginDifficulty: stratum.minLoginDifficulty,
    ban: { ...stratum.bans, weights: BAN_WEIGHTS, ipv6PrefixLength: stratum.ipv6PrefixLength },
    ipv6AggregateBans: {
      prefixLength: stratum.limits.ipv6AggregatePrefixLength,
      threshold: stratum.bans.ipv6AggregateBanThreshold,
      banSeconds: stratum.bans.ipv6AggregateBanSeconds,
    },
    newAddressesPerPeer: {
      burst: stratum.limits.newAddressBurstPerIp,
      perMinute: stratum.limits.newAddressesPerIpPerMinute,
      maxPeers: POOL_BACKEND_TUNING.newAddressPeersMaxEntries,
    },
  };
}

export function stratumServerOptionsFrom(
  config: Readonly<PoolConfig>,
  ports: readonly StratumPortOptions[],
): StratumServerOptions {
  return {
    ports,
    limits: { ...config.stratum.limits, ...STRATUM_LIMITS_TUNING },
    ipv6PrefixLength: config.stratum.ipv6PrefixLength,
  };
}

/** `tls`: the PEM text for the ports with `tls: true` (reading the files is the start checks' job). */
export function stratumPortsFrom(
  config: Readonly<PoolConfig>,
  tls: StratumPortOptions['tls'],
): StratumPortOptions[] {
  return config.stratum.ports.map((p) => ({
    port: p.port,
    host: p.host,
    difficulty: p.difficulty,
    fixedDifficulty: p.fixedDifficulty,
    solo: p.solo,
    ...(p.tls && tls ? { tls } : {}),
  }));
}
