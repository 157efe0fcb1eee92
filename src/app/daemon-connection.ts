import type { PoolConfig } from '../config/schema.js';
import { DaemonClient, type DaemonClientOptions } from '../rpc/daemon-client.js';
import { rpcTlsOf } from './rpc-tls.js';

/** Where a fuegod answers: `daemon` of the config, or a witness with the daemon's retries. */
type DaemonEndpoint = Pick<PoolConfig['daemon'], 'host' | 'port' | 'timeoutMs' | 'retries' | 'tls'>;

/**
 * A client of a fuegod as the config describes it, over HTTPS with its `tls` (a CA file that
 * cannot be read throws a ConfigError naming `tlsKey`). Every process that asks fuegod (the pool,
 * its stratum children and witnesses, `payout`, `report`, `block settle`, `payout resolve`) builds
 * its clients here.
 */
export function daemonClientOf(
  daemon: Readonly<DaemonEndpoint>,
  extra: Partial<Pick<DaemonClientOptions, 'retries' | 'observe'>> = {},
  tlsKey = 'daemon.tls',
): DaemonClient {
  return new DaemonClient({
    host: daemon.host,
    port: daemon.port,
    timeoutMs: daemon.timeoutMs,
    retries: daemon.retries,
    ...extra,
    ...(daemon.tls === undefined ? {} : { tls: rpcTlsOf(daemon.tls, tlsKey) }),
  });
}
