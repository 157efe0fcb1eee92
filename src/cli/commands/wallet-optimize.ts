import { loadPoolConfig } from '../../app/config-addresses.js';
import { createWalletUpkeep } from '../../app/money-services.js';
import { connectRedis } from '../../app/redis-connection.js';
import { walletClientOf } from '../../app/wallet-connection.js';
import { FUSION_SPENDABLE_BLOCKS } from '../../leader/payouts/wallet-upkeep.js';
import { createLogger } from '../../log/logger.js';
import type { UpkeepReport } from '../../pool/payouts/payout-reports.js';
import type { WalletOptimizeView } from '../../servers/control/control-protocol.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { parseFlags } from '../control-args.js';
import { ControlClient } from '../control-client.js';
import { runOnPoolOrStandalone } from '../pool-or-standalone.js';

const FLAGS = {
  '--config': 'value',
  '--socket': 'value',
  '--standalone': 'switch',
  '--json': 'switch',
} as const;

/** A silent pool for this long fails the request; the server sends a heartbeat every second. */
const OPTIMIZE_IDLE_TIMEOUT_MS = 30_000;

const USAGE =
  'fuego-pool wallet optimize --config FILE [--standalone] [--json] | fuego-pool wallet optimize --socket PATH [--json]';

const HELP = [
  "Joins the pool wallet's small outputs with walletd fusion transactions (no fee, back to the",
  'wallet), as the leader does by itself when the wallet refuses a payout as too big or short of',
  'decoys (payments.payouts.walletUpkeep). Only with no payout batch open, under the payout lock;',
  `payouts then wait until the fusions are ${FUSION_SPENDABLE_BLOCKS} blocks deep. Through the running leader's`,
  'control socket when there is one (--socket PATH, or control.socketPath of --config), else in',
  'this process (--standalone forces that). Exit 1 when it could not run now (open batch, lock held,',
  'wallet not synced or failing).',
];

/**
 * `fuego-pool wallet optimize`: the wallet upkeep on demand. Prints the fusion transactions sent,
 * those still pending, or why nothing was sent.
 */
export const walletOptimizeCommand: CliCommand = {
  path: ['wallet', 'optimize'],
  usage: USAGE,
  help: HELP,
  summary:
    "join the pool wallet's small outputs with fusion transactions now (through the running leader when its control socket is up)",
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, FLAGS);
    if (flags.positionals.length > 0) throw new UsageError(`unexpected argument ${flags.positionals[0]}`);
    const json = flags.switches.has('--json');
    const print = (report: UpkeepReport) => printReport(report, json, io);
    const socket = flags.values.get('--socket');
    if (socket !== undefined) {
      if (flags.switches.has('--standalone'))
        throw new UsageError('--socket cannot be combined with --standalone');
      return print(await optimizeViaSocket(socket, io));
    }
    const config = flags.values.get('--config');
    if (config === undefined) throw new UsageError('missing --config FILE (or --socket PATH)');
    const standalone = async () => print(await optimizeHere(config));
    if (flags.switches.has('--standalone')) return standalone();
    return runOnPoolOrStandalone(
      config,
      io,
      async (socketPath) => print(await optimizeViaSocket(socketPath, io)),
      standalone,
    );
  },
};

async function optimizeViaSocket(socketPath: string, io: CliIo): Promise<WalletOptimizeView> {
  const client = await ControlClient.connect({ socketPath, idleTimeoutMs: OPTIMIZE_IDLE_TIMEOUT_MS });
  writeLine(io.stderr, `asking the running pool (${socketPath}) to optimize its wallet`);
  try {
    return await client.request({ type: 'wallet-optimize' });
  } finally {
    await client.close();
  }
}

/** The upkeep in this process, on the config's Redis and wallet, under the same payout lock. */
async function optimizeHere(configPath: string): Promise<UpkeepReport> {
  const pool = loadPoolConfig(configPath);
  const logger = createLogger({ level: pool.log.level });
  const redis = await connectRedis(pool.redis, process.env, logger);
  const wallet = walletClientOf(pool.wallet, process.env, { retries: 2 });
  try {
    const upkeep = createWalletUpkeep(pool, { redis, wallet, logger });
    return await upkeep.runOnce({ operator: true });
  } finally {
    wallet.close();
    redis.disconnect();
  }
}

function printReport(report: UpkeepReport, json: boolean, io: CliIo): number {
  if (json) writeLine(io.stdout, JSON.stringify(report, null, 2));
  else for (const line of formatUpkeepReport(report)) writeLine(io.stdout, line);
  return report.state === 'deferred' ? 1 : 0;
}

/** The report for a terminal: what happened, then one transaction hash per line. */
export function formatUpkeepReport(report: UpkeepReport): string[] {
  const lines = [`${report.state}: ${report.detail}`];
  if (report.estimate !== null) {
    lines.push(
      `outputs: ${report.estimate.fusionReadyCount} of ${report.estimate.totalOutputCount} ready to join now`,
    );
  }
  for (const hash of report.sent) lines.push(`sent      ${hash}`);
  for (const hash of report.confirmed) lines.push(`spendable ${hash}`);
  for (const hash of report.pending) if (!report.sent.includes(hash)) lines.push(`pending   ${hash}`);
  return lines;
}
