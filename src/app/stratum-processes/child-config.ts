import { availableParallelism } from 'node:os';
import type { PoolConfig } from '../../config/schema.js';

/**
 * The config a stratum child runs: only the stratum role, its own node id (`pool.nodeId + index`,
 * so extra nonces never collide), no API, control socket or notifications (the parent has them), and
 * its share of the cores for verifier threads when `pow.workers` is 0 ("one per core"), out of
 * `processes` children.
 */
export function childConfig(
  config: Readonly<PoolConfig>,
  index: number,
  processes: number,
  cores = availableParallelism(),
): PoolConfig {
  // Left out rather than set to [], so the child's config parses back to itself.
  const { discord: _discord, telegram: _telegram, ...notifications } = config.notifications;
  return {
    ...config,
    roles: ['stratum'],
    pool: { ...config.pool, nodeId: config.pool.nodeId + index },
    stratum: { ...config.stratum, processes: 1 },
    pow: {
      ...config.pow,
      workers: config.pow.workers === 0 ? Math.max(1, Math.floor(cores / processes)) : config.pow.workers,
    },
    api: { ...config.api, enabled: false },
    control: { ...config.control, enabled: false },
    notifications: { ...notifications, webhooks: [] },
  };
}

/**
 * The node flags of a child: the parent's (an operator's --inspect or heap flags) and then the
 * configured semi-space, which wins over the parent's own (V8 takes the last).
 */
export function childExecArgv(parentArgv: readonly string[], semiSpaceMb: number): string[] {
  return semiSpaceMb > 0 ? [...parentArgv, `--max-semi-space-size=${semiSpaceMb}`] : [...parentArgv];
}
