import { loadPoolConfig } from '../../app/config-addresses.js';
import { daemonClientOf } from '../../app/daemon-connection.js';
import { createPayoutPass } from '../../app/money-services.js';
import { connectRedis } from '../../app/redis-connection.js';
import { walletClientOf } from '../../app/wallet-connection.js';
import { publishRelayedEvent } from '../../cluster/redis-event-relay.js';
import { formatAtomic } from '../../fuego/money.js';
import { runPayoutPass } from '../../leader/payouts/payout-pass.js';
import { unminedEvent } from '../../leader/payouts/unmined-notice.js';
import { createLogger } from '../../log/logger.js';
import type { BatchReport, PayoutRunSummary, UnminedReport } from '../../pool/payouts/payout-reports.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';

export interface PayoutArgs {
  readonly configPath: string;
  readonly now: boolean;
  readonly dryRun: boolean;
}

/** Parses `--config FILE [--now] [--dry-run]` (shared by report via its own subset). */
export function parsePayoutArgs(args: readonly string[], allowed: ReadonlySet<string>): PayoutArgs {
  let configPath: string | undefined;
  let now = false;
  let dryRun = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!allowed.has(arg)) throw new UsageError(`unknown option ${arg}`);
    if (arg === '--config') {
      configPath = args[++i];
      if (configPath === undefined) throw new UsageError('--config needs a FILE');
    } else if (arg === '--now') now = true;
    else if (arg === '--dry-run') dryRun = true;
  }
  if (configPath === undefined) throw new UsageError('missing --config FILE');
  return { configPath, now, dryRun };
}

/**
 * A pass as printed: the runner's summary, or the same read back from the control socket. Not the
 * batches it marked wallet-missing nor those it told not mined: the leader logs and notifies those
 * (a standalone pass prints and publishes the latter itself: unminedLines), and `report` lists them.
 */
export type PrintableSummary = Omit<PayoutRunSummary, 'unknownPayments' | 'walletMissing' | 'unmined'> & {
  readonly unknownPayments: ReadonlyArray<{
    readonly txHash: string;
    readonly batchId: string;
    readonly recipients: number;
    readonly amountAtomic: bigint;
  }>;
};

export function printableSummary(summary: PayoutRunSummary): PrintableSummary {
  return {
    ...summary,
    unknownPayments: summary.unknownPayments.map((p) => ({
      txHash: p.txHash,
      batchId: p.batchId,
      recipients: p.transfers.length,
      amountAtomic: p.transfers.reduce((sum, t) => sum + t.amountAtomic, 0n),
    })),
  };
}

/** The summary as an aligned text table, one line per batch. */
export function formatPayoutSummary(summary: PrintableSummary): string[] {
  const lines: string[] = [];
  if (summary.skipped !== null) lines.push(`skipped: ${summary.skipped} (${summary.detail})`);
  const rows: BatchReport[] = [...summary.recovered, ...summary.batches, ...summary.stillOpen];
  const unique = rows.filter(
    (row, index) => row.batchId === '(dry run)' || rows.findIndex((r) => r.batchId === row.batchId) === index,
  );
  const table = [
    ['batch', 'state', 'miners', 'amount (XFG)', 'tx', 'note'],
    ...unique.map((row) => [
      row.batchId,
      row.state,
      String(row.recipients),
      formatAtomic(row.amountAtomic),
      row.txHash ?? '-',
      row.note,
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((r) => r[column]!.length)));
  for (const row of table)
    lines.push(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
  if (unique.length === 0) lines.push('(no batches)');
  for (const skipped of summary.skippedMiners) lines.push(`not paid: ${skipped.address} - ${skipped.reason}`);
  for (const unknown of summary.unknownPayments) {
    lines.push(
      `UNKNOWN PAYMENT: tx ${unknown.txHash} (batch ${unknown.batchId}) paid ${unknown.recipients} addresses ${formatAtomic(unknown.amountAtomic)} XFG with no batch in Redis: its recipients are held; see fuego-pool payout resolve`,
    );
  }
  return lines;
}

/**
 * `fuego-pool payout --config FILE [--now] [--dry-run]`: one recovery + payout pass (for cron).
 * Without --now the pass is skipped when the last one finished less than payouts.intervalSec ago,
 * so a frequent cron line still honours the configured interval. Exit 0 when the pass ran (or was
 * not due), 1 when it was skipped for a reason the operator must look at.
 */
export const payoutCommand: CliCommand = {
  path: ['payout'],
  usage: 'fuego-pool payout --config FILE [--now] [--dry-run]',
  summary: 'settle unresolved payout batches, then pay balances above the minimum',
  async run(args: string[], io: CliIo): Promise<number> {
    const options = parsePayoutArgs(args, new Set(['--config', '--now', '--dry-run']));
    const pool = loadPoolConfig(options.configPath);
    const logger = createLogger({ level: pool.log.level });
    const redis = await connectRedis(pool.redis, process.env, logger);
    const wallet = walletClientOf(pool.wallet, process.env, { retries: 2 });
    const daemon = daemonClientOf(pool.daemon);
    try {
      const payoutLogger = logger.child({ module: 'payouts' });
      const pass = createPayoutPass(pool, { redis, wallet, daemon, logger: payoutLogger });
      const runner = pass.payouts;
      if (!options.now && !options.dryRun) {
        const last = await runner.lastRunAtMs();
        const dueAtMs = last === null ? 0 : last + pool.payments.payouts.intervalSec * 1000;
        if (Date.now() < dueAtMs) {
          writeLine(io.stdout, `not due: next payout after ${new Date(dueAtMs).toISOString()} (use --now)`);
          return 0;
        }
      }
      // A real pass has the wallet's upkeep around it, as the leader's does.
      const summary = options.dryRun
        ? await runner.runOnce({ dryRun: true })
        : await runPayoutPass({ ...pass, logger: payoutLogger });
      for (const line of formatPayoutSummary(printableSummary(summary))) writeLine(io.stdout, line);
      await tellUnmined(summary.unmined, io, (event) =>
        publishRelayedEvent(redis, pool.redis.keyPrefix, 'payout-unmined', event),
      );
      return summary.skipped === null ? 0 : 1;
    } finally {
      wallet.close();
      daemon.close();
      redis.disconnect();
    }
  },
};

/**
 * The sent payouts a standalone pass told not mined hours after their send (marked told in Redis,
 * so no later pass tells them again): a NOT MINED line each, and payout-unmined published through
 * the relay for the leader's notifier, as the leader's own pass would (best effort: a pool that is
 * not running hears nothing; the line is printed either way).
 */
async function tellUnmined(
  unmined: readonly UnminedReport[],
  io: CliIo,
  publish: (event: ReturnType<typeof unminedEvent>) => Promise<void>,
): Promise<void> {
  for (const batch of unmined) {
    const hours = Math.floor(batch.ageMs / 3_600_000);
    writeLine(
      io.stdout,
      `NOT MINED after ${hours} h: tx ${batch.txHash} (batch ${batch.batchId}), ${formatAtomic(batch.amountAtomic)} XFG to ${batch.recipients} miners: ${batch.advice}`,
    );
    await publish(unminedEvent(batch, Date.now())).catch((error: unknown) => {
      writeLine(
        io.stderr,
        `payout-unmined not published (${error instanceof Error ? error.message : String(error)})`,
      );
    });
  }
}
