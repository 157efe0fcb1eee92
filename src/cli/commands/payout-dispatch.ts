import type { BatchReport } from '../../pool/payouts/payout-reports.js';
import type {
  PayoutBatchView,
  PayoutNowView,
  PayoutSummaryView,
} from '../../servers/control/control-protocol.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { parseFlags } from '../control-args.js';
import { ControlClient } from '../control-client.js';
import { runOnPoolOrStandalone } from '../pool-or-standalone.js';
import { ProgressBar } from '../progress-bar.js';
import { formatPayoutSummary, type PrintableSummary, payoutCommand } from './payout.js';

const FLAGS = {
  '--config': 'value',
  '--now': 'switch',
  '--dry-run': 'switch',
  '--socket': 'value',
  '--standalone': 'switch',
} as const;

/** A silent pool for this long fails the request; the server sends a heartbeat every second. */
const PAYOUT_IDLE_TIMEOUT_MS = 30_000;

/**
 * `fuego-pool payout`, choosing who runs the pass:
 * - `--socket PATH --now`: the running leader, over its control socket (an error if unreachable);
 * - `--config FILE --now` (no --dry-run, no --standalone) with `control.enabled` and a socket at
 *   `control.socketPath`: the running leader too, so its events (webhooks, live feed) fire and it
 *   is not racing a second process for the payout lock; a missing or stale socket (pool not
 *   running) falls back to the standalone pass;
 * - everything else (cron without --now, --dry-run, --standalone): the standalone pass of
 *   payout.ts, in this process, under the same Redis payout lock.
 */
export const payoutDispatchCommand: CliCommand = {
  path: ['payout'],
  usage:
    'fuego-pool payout --config FILE [--now] [--dry-run] [--standalone] | fuego-pool payout --now --socket PATH',
  summary: payoutCommand.summary,
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, FLAGS);
    if (flags.positionals.length > 0) throw new UsageError(`unexpected argument ${flags.positionals[0]}`);
    const now = flags.switches.has('--now');
    const socket = flags.values.get('--socket');
    if (socket !== undefined) {
      if (!now) throw new UsageError('--socket asks the running pool for a pass now: add --now');
      if (flags.switches.has('--dry-run') || flags.switches.has('--standalone')) {
        throw new UsageError('--socket cannot be combined with --dry-run or --standalone');
      }
      return payViaSocket(socket, io);
    }
    const standaloneArgs = args.filter((arg) => arg !== '--standalone');
    const config = flags.values.get('--config');
    if (
      !now ||
      flags.switches.has('--dry-run') ||
      flags.switches.has('--standalone') ||
      config === undefined
    ) {
      return payoutCommand.run(standaloneArgs, io);
    }
    return runOnPoolOrStandalone(
      config,
      io,
      (socketPath) => payViaSocket(socketPath, io),
      () => payoutCommand.run(standaloneArgs, io),
    );
  },
};

/** Asks the leader for a pass, draws its progress on stderr, prints the summary on stdout. */
export async function payViaSocket(socketPath: string, io: CliIo): Promise<number> {
  const client = await ControlClient.connect({ socketPath, idleTimeoutMs: PAYOUT_IDLE_TIMEOUT_MS });
  writeLine(io.stderr, `asking the running pool (${socketPath}) for a payout pass`);
  const bar = new ProgressBar({ label: 'payout' }, { stream: io.stderr });
  let result: PayoutNowView;
  try {
    result = await client.request(
      { type: 'payout-now' },
      {
        onProgress: (progress) => {
          bar.update({ done: progress.done, total: progress.total, detail: progress.detail });
        },
      },
    );
    bar.finish(`${result.batchesSent} batch${result.batchesSent === 1 ? '' : 'es'} sent`);
  } catch (error) {
    bar.finish('failed');
    throw error;
  } finally {
    await client.close();
  }
  if (result.summary === null) {
    writeLine(
      io.stdout,
      `payout pass finished in ${(result.elapsedMs / 1000).toFixed(1)} s: ${result.batchesSent} batches sent`,
    );
    return 0;
  }
  for (const line of formatPayoutSummary(summaryFromView(result.summary))) writeLine(io.stdout, line);
  return result.summary.skipped === null ? 0 : 1;
}

function batchFromView(view: PayoutBatchView): BatchReport {
  return {
    ...view,
    amountAtomic: BigInt(view.amountAtomic),
    networkFeeAtomic: BigInt(view.networkFeeAtomic),
  };
}

function summaryFromView(view: PayoutSummaryView): PrintableSummary {
  return {
    ...view,
    recovered: view.recovered.map(batchFromView),
    batches: view.batches.map(batchFromView),
    stillOpen: view.stillOpen.map(batchFromView),
    unknownPayments: view.unknownPayments.map((p) => ({ ...p, amountAtomic: BigInt(p.amountAtomic) })),
  };
}
