import type { PoolConfigInput } from '../../src/config/schema.js';
import { type PoolProcess, startPoolProcess } from '../stratum/pool-process.js';

/** Node id of the leader process (stratum nodes are 1, 2, ...; the leader's id only names it). */
const LEADER_NODE_ID = 100;

/**
 * One leader process, `node dist/cli.js start --role leader`: it wins the Redis lease at once (a
 * fresh Redis has no holder), then polls the daemon and publishes templates over Redis.
 */
export function startLeaderProcess(config: PoolConfigInput): Promise<PoolProcess> {
  return startPoolProcess(config, {
    args: ['--role', 'leader', '--node-id', String(LEADER_NODE_ID)],
    readyMessage: 'leader lease acquired',
  });
}

/**
 * `count` stratum processes, `--role stratum --node-id 1..count`, each with `workersPerNode`
 * verifier workers and its own free port; started together, each ready once it has the leader's
 * template and listens. If one fails, the ones that started are stopped.
 */
export async function startStratumProcesses(
  config: PoolConfigInput,
  count: number,
  workersPerNode: number,
): Promise<PoolProcess[]> {
  const nodeConfig: PoolConfigInput = {
    ...config,
    pow: { ...config.pow, workers: workersPerNode, implementation: 'native' },
  };
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      startPoolProcess(nodeConfig, { args: ['--role', 'stratum', '--node-id', String(i + 1)] }),
    ),
  );
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) {
    await stopProcesses(started);
    throw failure.reason;
  }
  return started;
}

/** Stops each process by its PID (SIGTERM, SIGKILL after the grace), one after the other. */
export async function stopProcesses(processes: readonly PoolProcess[]): Promise<void> {
  for (const p of processes) await p.stop().catch(() => undefined);
}
