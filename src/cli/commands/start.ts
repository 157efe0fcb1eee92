import { PoolNode } from '../../app/pool-node.js';
import { loadConfigFile } from '../../config/load-config.js';
import { createLogger } from '../../log/logger.js';
import { type CliCommand, type CliIo, UsageError } from '../command.js';
import { waitForShutdownSignal } from '../shutdown-signal.js';

/** `fuego-pool start --config FILE`: runs the pool (stratum, templates, share pipeline) until SIGINT/SIGTERM. */
export const startCommand: CliCommand = {
  path: ['start'],
  usage: 'fuego-pool start --config FILE',
  summary: 'run the pool: stratum server, template polling and the share pipeline',
  async run(args: string[], _io: CliIo): Promise<number> {
    let configFile: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === '--config') configFile = args[++i];
      else if (arg?.startsWith('--config=')) configFile = arg.slice('--config='.length);
      else throw new UsageError(`unknown argument "${arg}"`);
    }
    if (!configFile) throw new UsageError('--config FILE is required');
    const config = loadConfigFile(configFile);
    const logger = createLogger(config.log);
    const node = await PoolNode.start(config, { logger });
    const signal = await waitForShutdownSignal();
    logger.info({ signal }, 'shutting down');
    await node.stop();
    return 0;
  },
};
