import { readFile } from 'node:fs/promises';
import { listenersClash } from '../config/listen-clash.js';
import { ConfigError } from '../config/load-config.js';
import type { PoolConfig } from '../config/schema.js';
import { AddressError, decodeAddress } from '../fuego/address.js';
import { notificationTargets } from '../leader/notifications/webhook-notifier.js';
import { createLogger } from '../log/logger.js';
import { adminTokenFromEnv, parseApiOptions } from '../servers/api/api-options.js';
import type { StratumPortOptions } from '../servers/stratum/stratum-options.js';
import { checkConfigAddresses } from './config-addresses.js';
import { type PoolRole, resolveRoles } from './roles.js';
import { stratumPortsFrom } from './stratum-options.js';

/** PEM certificate and key for TLS stratum ports. */
export interface TlsPem {
  readonly cert: string;
  readonly key: string;
}

/** What a pool process needs from its config before it starts anything. */
export interface StartPlan {
  readonly roles: ReadonlySet<PoolRole>;
  /** The pool's reward address; null without the leader role. */
  readonly poolAddress: string | null;
  readonly tlsPem: TlsPem | undefined;
  /** The stratum ports (empty without the stratum role). */
  readonly ports: StratumPortOptions[];
  readonly adminToken: string | null;
  readonly runApi: boolean;
}

/**
 * The configuration problems a pool process can find before it runs anything (bad Fuego addresses,
 * no reward address, unreadable TLS files, bad API options), thrown as ConfigError, and notification
 * secrets missing from the environment (NotificationError); and what it then starts.
 */
export async function planStart(
  config: Readonly<PoolConfig>,
  tls: TlsPem | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<StartPlan> {
  checkConfigAddresses(config);
  const roles = resolveRoles(config.roles);
  const poolAddress = roles.has('leader') ? requireStandardAddress(config.pool.address) : null;
  const tlsPem = roles.has('stratum') ? await readTlsPem(config, tls) : undefined;
  const ports = roles.has('stratum') ? stratumPortsFrom(config, tlsPem) : [];
  // The leader sends the notifications: a secret missing from its environment stops it here. The
  // targets are thrown away (silently: the notifier logs their warnings when it starts).
  if (roles.has('leader')) {
    const logger = createLogger({ level: 'silent' });
    notificationTargets(config.notifications, { env, logger, clock: Date.now });
  }
  const adminToken = adminTokenFromEnv(env);
  const runApi = roles.has('api') && config.api.enabled;
  if (runApi) {
    const { enabled: _enabled, ...apiInput } = config.api;
    parseApiOptions(apiInput);
    if (roles.has('stratum')) checkApiPortFree(config);
  }
  return { roles, poolAddress, tlsPem, ports, adminToken, runApi };
}

function requireStandardAddress(address: string | undefined): string {
  if (address === undefined) {
    throw new ConfigError(
      'CONFIG_INVALID',
      'invalid configuration:\n  pool.address: required to run the pool',
      {
        issues: ['pool.address: required'],
      },
    );
  }
  try {
    if (decodeAddress(address).type === 'standard') return address;
    throw new ConfigError(
      'CONFIG_INVALID',
      'invalid configuration:\n  pool.address: must be a standard address (the daemon refuses integrated ones)',
    );
  } catch (error) {
    if (!(error instanceof AddressError)) throw error;
    throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  pool.address: ${error.message}`, {
      issues: [`pool.address: ${error.message}`],
    });
  }
}

/**
 * The API listens at once, the stratum ports only with the first template: an API port that one of
 * them also takes would stop the pool only then (PORT_IN_USE), maybe hours later. Checked only
 * when this process runs both: processes on different hosts may use the same number.
 */
function checkApiPortFree(config: Readonly<PoolConfig>): void {
  const index = config.stratum.ports.findIndex((p) => listenersClash(p, config.api));
  if (index === -1) return;
  const { host, port } = config.stratum.ports[index]!;
  const issue = `api.port: ${config.api.host}:${config.api.port} is also stratum.ports.${index} (${host}:${port}); give the API another port`;
  throw new ConfigError('CONFIG_INVALID', `invalid configuration:\n  ${issue}`, { issues: [issue] });
}

/** The PEM for TLS ports: given by the caller, or read from stratum.tls when a port has TLS. */
async function readTlsPem(
  config: Readonly<PoolConfig>,
  pem: TlsPem | undefined,
): Promise<TlsPem | undefined> {
  if (pem || !config.stratum.tls || !config.stratum.ports.some((p) => p.tls)) return pem;
  const [cert, key] = await Promise.all([
    readFile(config.stratum.tls.certFile, 'utf8'),
    readFile(config.stratum.tls.keyFile, 'utf8'),
  ]).catch((cause: unknown) => {
    throw new ConfigError(
      'CONFIG_UNREADABLE',
      `stratum.tls: cannot read certificate or key (${(cause as Error).message})`,
      {},
      { cause },
    );
  });
  return { cert, key };
}
