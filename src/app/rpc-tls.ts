import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import type { JsonHttpTls } from '../rpc/json-http.js';

type RpcTlsConfig = NonNullable<PoolConfig['wallet']['tls']>;

/**
 * The HTTP client's TLS options for a `tls` entry of the config whose key is `key`: the pinned
 * fingerprint, or the CA read from `caFile`, or nothing more (the system's CAs). A CA file that
 * cannot be read or holds no certificate is a ConfigError naming the key: the caller builds its
 * clients at start, so the pool does not start with it.
 */
export function rpcTlsOf(tls: RpcTlsConfig, key: string): JsonHttpTls {
  if (tls.fingerprint !== undefined) return { fingerprint256: tls.fingerprint };
  if (tls.caFile === undefined) return {};
  const caKey = `${key}.caFile`;
  let ca: string;
  try {
    ca = readFileSync(tls.caFile, 'utf8');
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `${caKey}: cannot read ${tls.caFile} (${(cause as Error).message})`,
      { key: caKey, path: tls.caFile },
      { cause },
    );
  }
  try {
    new X509Certificate(ca);
  } catch (cause) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `${caKey}: ${tls.caFile} holds no PEM certificate`,
      { key: caKey, path: tls.caFile },
      { cause },
    );
  }
  return { ca };
}
