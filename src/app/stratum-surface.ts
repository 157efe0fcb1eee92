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
  };
}
