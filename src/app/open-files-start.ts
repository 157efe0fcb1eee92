import type { PoolConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { type OpenFilesPlan, openFilesPlan, readOpenFilesLimit } from './open-files-budget.js';
import type { StartPlan } from './start-checks.js';
import { stratumProcessCount } from './stratum-processes/process-count.js';

/**
 * The open-files plan of a pool process at start: `given` (null: none; undefined: this process's
 * own, read from /proc) shared out over the connections its roles take, and a warning logged for
 * each configured cap the limit cuts. A stratum child is `quiet`: its parent, which knows how many
 * children there are, told the operator.
 */
export function startOpenFilesPlan(
  config: Readonly<PoolConfig>,
  plan: Pick<StartPlan, 'roles' | 'runApi'>,
  given: number | null | undefined,
  options: { readonly logger: Logger; readonly quiet: boolean },
): OpenFilesPlan {
  const limit = given !== undefined ? given : (readOpenFilesLimit() ?? null);
  const stratum = plan.roles.has('stratum');
  const openFiles = openFilesPlan(
    limit,
    {
      stratumMaxConnections: stratum ? config.stratum.limits.maxConnections : null,
      stratumProcesses: stratum ? stratumProcessCount(config, { openFilesLimit: limit }) : 1,
      apiMaxConnections: plan.runApi ? config.api.maxConnections : null,
    },
    { quiet: options.quiet },
  );
  for (const line of openFiles.warnings) options.logger.warn({ openFilesLimit: openFiles.limit }, line);
  return openFiles;
}
