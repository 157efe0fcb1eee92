import { MAX_MINERS_LIMIT, type MinersView } from '../../servers/control/control-protocol.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { CONTROL_FLAGS, integerFlag, parseFlags, socketFlags } from '../control-args.js';
import { resolveSocketPath, withControlClient } from '../control-client.js';
import { formatAgo, formatDuration, formatHashrate, formatTable } from '../text-format.js';

const DEFAULT_LIMIT = 20;

/** Top miners as a table, highest hashrate first; the address last so it can be copied whole. */
export function formatMiners(view: MinersView, nowMs: number): string[] {
  if (view.miners.length === 0)
    return [`no miner with a share in the last ${formatDuration(view.windowSeconds)}`];
  return [
    `top ${view.miners.length} miners by hashrate over ${formatDuration(view.windowSeconds)}`,
    ...formatTable(
      [
        ['#', 'hashrate', 'workers', 'last share', 'address'],
        ...view.miners.map((miner, index) => [
          String(index + 1),
          formatHashrate(miner.hashrate),
          String(miner.activeWorkers),
          formatAgo(miner.lastShareMs, nowMs),
          miner.address,
        ]),
      ],
      { rightAlign: [0, 1, 2] },
    ),
  ];
}

/** `fuego-pool miners [--limit N] [--socket PATH | --config FILE] [--json]`. */
export const minersCommand: CliCommand = {
  path: ['miners'],
  usage: `fuego-pool miners [--limit N (1-${MAX_MINERS_LIMIT}, default ${DEFAULT_LIMIT})] [--socket PATH | --config FILE] [--json]`,
  summary: 'top miners of the running pool by hashrate',
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, { ...CONTROL_FLAGS, '--limit': 'value' });
    if (flags.positionals.length > 0) throw new UsageError(`unexpected argument ${flags.positionals[0]}`);
    const limit = integerFlag(flags, '--limit', DEFAULT_LIMIT, 1, MAX_MINERS_LIMIT);
    const socketPath = resolveSocketPath(socketFlags(flags));
    const view = await withControlClient({ socketPath }, (client) =>
      client.request({ type: 'miners', limit }),
    );
    if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(view, null, 2));
    else for (const line of formatMiners(view, Date.now())) writeLine(io.stdout, line);
    return 0;
  },
};
