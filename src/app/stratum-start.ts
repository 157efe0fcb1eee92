import { availableParallelism } from 'node:os';
import type { Redis } from 'ioredis';
import type { PoolConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { BanRegistry } from '../pool/ban-registry.js';
import type { PoolEventBus } from '../pool/events.js';
import type { DaemonClient } from '../rpc/daemon-client.js';
import type { RpcCallFanout } from '../rpc/rpc-call-observer.js';
import type { ServerFloodDrops } from '../servers/flood-drop/flood-drops.js';
import type { ConnectionAdmission } from '../servers/stratum/connection-admission.js';
import type { OpenFilesPlan } from './open-files-budget.js';
import type { Part } from './parts.js';
import type { StartPlan } from './start-checks.js';
import { stratumProcessCount } from './stratum-processes/process-count.js';
import type { StratumProcessGroup } from './stratum-processes/stratum-process-group.js';
import type { StratumRole } from './stratum-role.js';
import { type StratumSurface, surfaceOfRole } from './stratum-surface.js';

/** The stratum role as PoolNode runs it: in this process, in child processes, or not at all. */
export interface StratumParts {
  readonly role: StratumRole | null;
  readonly processes: StratumProcessGroup | null;
  readonly surface: StratumSurface | null;
}

/** What a stratum child process's parent does for it (stratum-child-main.ts). */
export interface StratumChildModules {
  /** The host-wide connection caps, counted by the parent. */
  readonly admission: ConnectionAdmission;
  /** Its refusals, reported to the parent, which drops flooding peers; none: drops are off. */
  readonly floodDrops?: ServerFloodDrops;
}

export const NO_STRATUM: StratumParts = { role: null, processes: null, surface: null };

/** The stratum role built with its ports closed: `serve` waits for the first template and opens them. */
export interface PreparedStratum {
  readonly parts: StratumParts;
  serve(): Promise<void>;
}

/** Builds the stratum role (in this process or its children) with its ports closed. */
export async function prepareStratum(
  config: Readonly<PoolConfig>,
  context: {
    plan: StartPlan;
    shared: {
      readonly redis: Redis;
      readonly daemon: DaemonClient;
      readonly rpcCalls: RpcCallFanout;
      readonly events: PoolEventBus;
    };
    bans: BanRegistry;
    logger: Logger;
    abandon: Promise<never>;
    /** A stratum child's: the parent applies the host's connection caps and drops floods. */
    child: StratumChildModules | undefined;
    openFiles: OpenFilesPlan;
  },
  parts: Part[],
): Promise<PreparedStratum> {
  const { plan, shared, bans, logger, abandon, child, openFiles } = context;
  const cores = availableParallelism();
  const processes = stratumProcessCount(config, { cores, openFilesLimit: openFiles.limit });
  if (config.stratum.processes === 'auto' && processes > cores) {
    logger.info(
      {
        processes,
        cores,
        openFilesLimit: openFiles.limit,
        maxConnections: config.stratum.limits.maxConnections,
      },
      'stratum.processes "auto": more processes than cores, so that stratum.limits.maxConnections fit under the open-files limit',
    );
  }
  if (processes > 1) {
    const { StratumProcessGroup } = await import('./stratum-processes/stratum-process-group.js');
    const group = new StratumProcessGroup(
      { config, processes, ...(plan.tlsPem ? { tls: plan.tlsPem } : {}) },
      { logger: logger.child({ module: 'stratum-processes' }), abandon, bans, rpcCalls: shared.rpcCalls },
    );
    return {
      parts: { role: null, processes: group, surface: group.surface() },
      async serve() {
        // The group stops its children itself when this fails.
        await group.serve();
        parts.push({ name: 'stratum processes', stop: () => group.stop() });
      },
    };
  }
  const { prepareStratumRole } = await import('./stratum-role.js');
  const { role, serve } = await prepareStratumRole(
    config,
    {
      redis: shared.redis,
      daemon: shared.daemon,
      events: shared.events,
      logger,
      ports: plan.ports,
      abandon,
      bans,
      ...(child ? { connectionAdmission: child.admission } : {}),
      ...(child?.floodDrops ? { floodDrops: child.floodDrops } : {}),
      ...(openFiles.stratum === undefined ? {} : { maxConnectionsInProcess: openFiles.stratum }),
    },
    parts,
  );
  return { parts: { role, processes: null, surface: surfaceOfRole(role) }, serve };
}
