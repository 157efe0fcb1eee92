import type { PoolConfig } from '../config/schema.js';
import type { Witness } from '../leader/unlocker/witness-chain-check.js';
import { daemonClientOf } from './daemon-connection.js';

/**
 * A daemon client per `payments.witnessDaemons` entry (reads only, retried like the daemon's),
 * over HTTPS for an entry with `tls`. A `caFile` that cannot be read or holds no certificate stops
 * the start, naming the key: found at the first unlock run, it would hold every run instead.
 */
export function witnessesOf(config: Readonly<PoolConfig>): Witness[] {
  return config.payments.witnessDaemons.map((witness, index) => ({
    name: `${witness.host}:${witness.port}`,
    chain: daemonClientOf(
      { ...witness, retries: config.daemon.retries },
      {},
      `payments.witnessDaemons.${index}.tls`,
    ),
  }));
}
