import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import type { Witness } from '../leader/unlocker/witness-chain-check.js';
import { DaemonClient } from '../rpc/daemon-client.js';
import type { JsonHttpTls } from '../rpc/json-http.js';

type WitnessConfig = PoolConfig['payments']['witnessDaemons'][number];

/**
 * A daemon client per `payments.witnessDaemons` entry (reads only, retried like the daemon's),
 * over HTTPS for an entry with `tls`. A `caFile` that cannot be read or holds no certificate stops
 * the start, naming the key: found at the first unlock run, it would hold every run instead.
 */
export function witnessesOf(config: Readonly<PoolConfig>): Witness[] {
  return config.payments.witnessDaemons.map((witness, index) => {
    const tls = witness.tls === undefined ? undefined : witnessTls(witness.tls, index);
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

function witnessTls(tls: NonNullable<WitnessConfig['tls']>, index: number): JsonHttpTls {
  if (tls.fingerprint !== undefined) return { fingerprint256: tls.fingerprint };
  if (tls.caFile === undefined) return {};
  const key = `payments.witnessDaemons.${index}.tls.caFile`;
  let ca: string;
  try {
    ca = readFileSync(tls.caFile, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `${key}: cannot read ${tls.caFile} (${(cause as Error).message})`,
      { key, path: tls.caFile },
      { cause },
    );
  }
  try {
    new X509Certificate(ca);
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${key}: ${tls.caFile} holds no PEM certificate`,
      { key, path: tls.caFile },
      { cause },
    );
  }
  return { ca };
}
