import type { RedisBanList } from '../cluster/redis-ban-list.js';
import type { MetricsSources } from '../servers/api/api-metrics.js';
import type { ControlBackend, ControlStratum } from '../servers/control/control-handler.js';
import type { ListeningPort } from '../servers/stratum/stratum-server.js';
import type { StratumRole } from './stratum-role.js';

/**
 * What the API, the metrics and the control socket read of the stratum role, wherever it runs:
 * in this process (surfaceOfRole) or in stratum child processes (StratumProcessGroup.surface).
 */
export interface StratumSurface {
  readonly control: { readonly backend: ControlBackend; readonly stratum: ControlStratum };
  readonly metricsSources: Required<
    Pick<MetricsSources, 'stratum' | 'backend' | 'verifier' | 'shareLedger'>
  > &
    Pick<MetricsSources, 'stratumProcesses'>;
  listening(): ListeningPort[];
  activeBans(): number;
}

export function surfaceOfRole(role: StratumRole): StratumSurface {
  return {
    control: { backend: role.backend, stratum: role.server },
    metricsSources: {
      stratum: () => role.server.metrics(),
      backend: () => role.backend.metrics,
      verifier: () => role.verifier.metrics(),
      shareLedger: () => role.ledger.metrics(),
    },
    listening: () => role.server.listening(),
    activeBans: () => role.backend.listBans().length,
  };
}

/**
 * The surface with the operator's unban also told to the other stratum hosts. (Bans need no
 * wrapping: the operator's ban, like the ban policy's, reaches the ban list through onBanIssued.)
 * A lift heard from another host is applied below this wrapper, so it is not announced again.
 * `keyOf` maps the IP the operator named to the key the ban is stored under (an IPv6 network).
 */
export function sharingUnbans(
  surface: StratumSurface,
  bans: Pick<RedisBanList, 'publishUnban'>,
  keyOf: (ip: string) => string,
): StratumSurface {
  const backend = surface.control.backend;
  return {
    ...surface,
    control: {
      ...surface.control,
      backend: {
        listBans: () => backend.listBans(),
        ban: (ip, seconds, reason) => backend.ban(ip, seconds, reason),
        unban: (ip) => {
          const wasBanned = backend.unban(ip);
          bans.publishUnban(keyOf(ip));
          return wasBanned;
        },
        get metrics() {
          return backend.metrics;
        },
      },
    },
  };
}
