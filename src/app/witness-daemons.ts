import type { PoolConfig } from '../config/schema.js';
import type { Witness } from '../leader/unlocker/witness-chain-check.js';
import { DaemonClient } from '../rpc/daemon-client.js';
import { rpcTlsOf } from './rpc-tls.js';

/**
 * A daemon client per `payments.witnessDaemons` entry (reads only, retried like the daemon's),
 * over HTTPS for an entry with `tls`. A `caFile` that cannot be read or holds no certificate stops
 * the start, naming the key: found at the first unlock run, it would hold every run instead.
 */
export function witnessesOf(config: Readonly<PoolConfig>): Witness[] {
  return config.payments.witnessDaemons.map((witness, index) => {
    const tls =
      witness.tls === undefined ? undefined : rpcTlsOf(witness.tls, `payments.witnessDaemons.${index}.tls`);
    return {
      name: `${witness.host}:${witness.port}`,
      chain: new DaemonClient({
        host: witness.host,
        port: witness.port,
        timeoutMs: witness.timeoutMs,
        retries: config.daemon.retries,
        ...(tls === undefined ? {} : { tls }),
      }),
    };
  });
}
