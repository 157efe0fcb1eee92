import type { StratumProcessView } from '../../servers/control/control-protocol.js';
import type { ListeningPort } from '../../servers/stratum/stratum-server.js';
import type { StratumSurface } from '../stratum-surface.js';
import type { ChildStats } from './child-messages.js';

/** What a StratumProcessGroup shows of its children. */
export interface ProcessGroupView {
  /** The children's numbers added up (see StratumProcessGroup.stats). */
  stats(): ChildStats;
  children(): StratumProcessView[];
  listening(): ListeningPort[];
}

/** What the API, metrics and control socket read: the children as one stratum role. */
export function surfaceOfProcessGroup(group: ProcessGroupView): StratumSurface {
  const stats = () => group.stats();
  const backend = {
    get metrics() {
      return stats().backend;
    },
  };
  return {
    control: {
      backend,
      stratum: { metrics: () => stats().stratum, processes: () => group.children() },
    },
    metricsSources: {
      stratum: () => stats().stratum,
      backend: () => stats().backend,
      verifier: () => stats().verifier,
      shareLedger: () => stats().ledger,
      stratumProcesses: () => group.children(),
    },
    listening: () => group.listening(),
  };
}
