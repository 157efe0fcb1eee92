import type { PoolConfig } from '../config/schema.js';
import { DaemonClient, type DaemonClientOptions } from '../rpc/daemon-client.js';
import { rpcTlsOf } from './rpc-tls.js';

/**
 * A client of the pool's fuegod as `daemon` of the config describes it, over HTTPS with
 * `daemon.tls` (a CA file that cannot be read throws a ConfigError naming the key). Every process
 * that asks fuegod (the pool, its stratum children, `payout`, `report`, `block settle`, `payout
 * resolve`) builds its client here.
 */
export function daemonClientOf(
  daemon: Readonly<PoolConfig['daemon']>,
  extra: Partial<Pick<DaemonClientOptions, 'retries' | 'observe'>> = {},
): DaemonClient {
  return new DaemonClient({
    host: daemon.host,
    port: daemon.port,
    timeoutMs: daemon.timeoutMs,
    retries: daemon.retries,
    ...extra,
    ...(daemon.tls === undefined ? {} : { tls: rpcTlsOf(daemon.tls, 'daemon.tls') }),
  });
}
