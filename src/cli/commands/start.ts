import { loadPoolConfig } from '../../app/config-addresses.js';
import { PoolNode, PoolNodeStartError } from '../../app/pool-node.js';
import { resolveRoles } from '../../app/roles.js';
import type { PoolConfig } from '../../config/schema.js';
import { FuegoPoolError } from '../../errors.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { waitForShutdownSignal } from '../shutdown-signal.js';

const USAGE = 'fuego-pool start --config FILE [--role stratum|leader|api|all]... [--node-id N]';

interface StartArgs {
  readonly configFile: string;
  /** Empty: the config's `roles`. */
  readonly roles: string[];
  readonly nodeId: number | undefined;
}

function parseArgs(args: readonly string[]): StartArgs {
  let configFile: string | undefined;
  const roles: string[] = [];
  let nodeId: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const raw = args[i]!;
    const eq = raw.indexOf('=');
    const flag = raw.startsWith('--') && eq > 0 ? raw.slice(0, eq) : raw;
    const value = (): string => {
      const text = eq > 0 && raw.startsWith('--') ? raw.slice(eq + 1) : args[++i];
      if (text === undefined || text === '') throw new UsageError(`${flag} needs a value`);
      return text;
    };
    switch (flag) {
      case '--config':
        configFile = value();
        break;
      case '--role':
        roles.push(value());
        break;
      case '--node-id': {
        const text = value();
        const n = Number(text);
        if (!/^\d+$/.test(text) || n > 0xffff)
          throw new UsageError('--node-id needs a whole number 0..65535');
        nodeId = n;
        break;
      }
      default:
        throw new UsageError(`unknown argument "${raw}"`);
    }
  }
  if (!configFile) throw new UsageError('--config FILE is required');
  if (roles.length > 0) {
    try {
      resolveRoles(roles);
    } catch (error) {
      throw new UsageError(`--role: ${(error as Error).message.split('\n').pop()?.trim() ?? ''}`);
    }
  }
  return { configFile, roles, nodeId };
}

/** The file's config with the command line's roles and node id put over it. */
function withOverrides(config: Readonly<PoolConfig>, args: StartArgs): Readonly<PoolConfig> {
  let result = config;
  if (args.roles.length > 0) {
    const roles = args.roles.flatMap((entry) => entry.split(',').map((name) => name.trim()));
    result = { ...result, roles: roles as PoolConfig['roles'] };
  }
  if (args.nodeId !== undefined) result = { ...result, pool: { ...result.pool, nodeId: args.nodeId } };
  return result;
}

/**
 * Runs the pool until SIGINT/SIGTERM (exit 0) or a fatal fault (exit 1, the reason on stderr as
 * for a failed start: the JSON log may be silent or shipped elsewhere). The signals are listened
 * for from the start: a stop while the pool waits for its first template (fuegod down or syncing)
 * is an ordinary stop, not the signal's default action.
 */
async function runUntilStopped(
  config: Readonly<PoolConfig>,
  modules: { readonly logger: Logger; readonly stderr: NodeJS.WritableStream },
  ended: AbortSignal,
): Promise<number> {
  const { logger } = modules;
  const shutdown = new AbortController();
  const signalled = waitForShutdownSignal(ended).then((signal) => {
    logger.info({ signal }, 'shutting down');
    shutdown.abort();
    return signal;
  });
  const node = await PoolNode.start(config, { logger, shutdown: shutdown.signal }).catch((error: unknown) => {
    // The start stopped what it had started, as node.stop() does.
    if (error instanceof PoolNodeStartError && error.code === 'STOPPED_WHILE_STARTING') return null;
    throw error;
  });
  if (node === null) return 0;
  const error = await Promise.race([signalled.then(() => null), node.failed()]);
  if (error !== null) logger.info({ error: error.message }, 'shutting down');
  await node.stop();
  if (error === null) return 0;
  // The router prints a pool error as it prints one thrown by the start: message and code, exit 1.
  if (error instanceof FuegoPoolError) throw error;
  writeLine(modules.stderr, `fuego-pool start: ${error.message}`);
  return 1;
}

/**
 * `fuego-pool start --config FILE [--role ...] [--node-id N]`: runs the roles of this process
 * (default: the config's `roles`, which default to all) until SIGINT/SIGTERM.
 */
export const startCommand: CliCommand = {
  path: ['start'],
  usage: USAGE,
  summary: 'run the pool (stratum, leader, API roles; all by default) until SIGINT/SIGTERM',
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseArgs(args);
    const config = withOverrides(loadPoolConfig(parsed.configFile), parsed);
    const logger = createLogger(config.log);
    const ended = new AbortController();
    try {
      return await runUntilStopped(config, { logger, stderr: io.stderr }, ended.signal);
    } finally {
      ended.abort();
    }
  },
};
