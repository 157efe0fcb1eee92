import { firstTemplateWaitText } from '../../app/first-template-wait.js';
import type { StatusView, StratumProcessView, UnlockerView } from '../../servers/control/control-protocol.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { CONTROL_FLAGS, parseFlags, socketFlags } from '../control-args.js';
import { resolveSocketPath, withControlClient } from '../control-client.js';
import { formatAgo, formatDuration, formatHashrate, formatTable } from '../text-format.js';

/**
 * The status as a two-column table, one line per part of the pool this process runs. A process
 * still waiting for its first template says so (what from, for how long, why) instead of the
 * template and stratum counters, which mean nothing yet.
 */
export function formatStatus(status: StatusView, nowMs: number = Date.now()): string[] {
  const { templates, stratum, pool, payouts } = status;
  const waiting = waitingOf(status);
  const rows: string[][] = [
    ['templates', waiting === null ? templatesText(templates) : firstTemplateWaitText(waiting)],
  ];
  if (stratum === null) {
    rows.push(['stratum', 'not run by this process']);
  } else if (waiting !== null) {
    rows.push(['stratum', 'not listening yet: the ports open with the first template']);
    if (stratum.processes !== null) rows.push(['processes', processesText(stratum.processes)]);
  } else {
    const ports = Object.entries(stratum.ports)
      .map(([port, current]) => `port ${port}: ${current}`)
      .join(', ');
    const { shares, blocks, bans } = stratum;
    rows.push(
      [
        'stratum',
        `${stratum.connections} connections, ${stratum.sessions} logged in${ports === '' ? '' : ` (${ports})`}`,
      ],
      ['shares', `${shares.accepted} accepted (${shares.stale} stale), ${shares.rejected} rejected`],
      [
        'blocks',
        `${blocks.found} found, ${blocks.accepted} accepted, ${blocks.rejected} rejected, ${blocks.submitErrors} submit errors`,
      ],
      [
        'bans',
        `${bans.active} active, ${bans.issued} issued since start (${stratum.processes === null ? 'this process' : 'all its stratum processes'})`,
      ],
    );
    if (stratum.processes !== null) rows.push(['processes', processesText(stratum.processes)]);
  }
  rows.push([
    'hashrate',
    pool === null
      ? 'unavailable (statistics store not readable)'
      : `${formatHashrate(pool.hashrate)} over ${formatDuration(pool.windowSeconds)}, ${pool.miners} miners, ${pool.workers} workers (pool-wide)`,
  ]);
  rows.push([
    'payouts',
    PAYOUT_ROLE_TEXT[payouts.role] + (payouts.running ? '; a pass requested over the socket is running' : ''),
  ]);
  if (status.unlocker) rows.push(['unlocker', unlockerText(status.unlocker, nowMs)]);
  return [`fuego-pool ${status.version}, up ${formatDuration(status.uptimeSeconds)}`, ...formatTable(rows)];
}

/** e.g. "#0 node 0 pid 4242 serving 10 miners; #1 node 1 waiting-to-restart (restarted 2 times)". */
function processesText(processes: readonly StratumProcessView[]): string {
  return processes
    .map((p) => {
      const pid = p.pid === null ? '' : ` pid ${p.pid}`;
      const restarts =
        p.restarts === 0 ? '' : ` (restarted ${p.restarts} time${p.restarts === 1 ? '' : 's'})`;
      const miners = p.state === 'serving' ? ` ${p.sessions} miners` : '';
      return `#${p.index} node ${p.nodeId}${pid} ${p.state}${miners}${restarts}`;
    })
    .join('; ');
}

const PAYOUT_ROLE_TEXT: Record<StatusView['payouts']['role'], string> = {
  none: 'not run by this process (no leader role)',
  standby: 'standing by (another process holds the leader lease)',
  leading: 'this process leads (payout --now runs here)',
};

function templatesText(templates: StatusView['templates']): string {
  if (templates === null) return 'none in this process';
  const where = `height ${templates.height ?? '?'}, template ${ageText(templates.templateAgeMs)}`;
  if (templates.healthy) return `healthy, ${where}`;
  const failures = templates.consecutiveFailures === null ? '' : `${templates.consecutiveFailures} failures`;
  const detail = [failures, templates.lastError ?? ''].filter((part) => part !== '').join(': ');
  return `UNHEALTHY${detail === '' ? '' : ` (${detail})`}, ${where}`;
}

/** A pool process older than this field sends none (an upgrade's old process, a new CLI). */
function waitingOf(status: StatusView): StatusView['waiting'] {
  return status.waiting ?? null;
}

/** The leader's last unlock run: held (and why, since when), failing, or what it decided. */
function unlockerText(unlocker: UnlockerView, nowMs: number): string {
  if (unlocker.lastRunMs === null) return 'no run yet in this leader term';
  const last = `last run ${formatAgo(unlocker.lastRunMs, nowMs)}`;
  if (unlocker.lastError !== null) return `FAILING: ${unlocker.lastError} (${last})`;
  if (unlocker.held !== null) {
    const since =
      unlocker.heldSinceMs === null ? '' : ` for ${formatDuration((nowMs - unlocker.heldSinceMs) / 1000)}`;
    return `HELD${since}: ${unlocker.held}, pending blocks are not decided (${last}; the log says why)`;
  }
  return `${last}, ${unlocker.decided} block${unlocker.decided === 1 ? '' : 's'} decided`;
}

function ageText(ms: number | null): string {
  return ms === null ? 'none yet' : `${(ms / 1000).toFixed(1)} s old`;
}

/** `fuego-pool status [--socket PATH | --config FILE] [--json]`: a summary of the running pool. */
export const statusCommand: CliCommand = {
  path: ['status'],
  usage: 'fuego-pool status [--socket PATH | --config FILE] [--json]',
  summary:
    'summary of the running pool process (over its control socket); exit 1 when its templates are unhealthy or it still waits for its first one',
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, CONTROL_FLAGS);
    if (flags.positionals.length > 0) throw new UsageError(`unexpected argument ${flags.positionals[0]}`);
    const socketPath = resolveSocketPath(socketFlags(flags));
    const status = await withControlClient({ socketPath }, (client) => client.request({ type: 'status' }));
    if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(status, null, 2));
    else for (const line of formatStatus(status)) writeLine(io.stdout, line);
    // Waiting for the first template is not healthy: the pool takes no miner yet.
    if (waitingOf(status) !== null) return 1;
    return status.templates === null || status.templates.healthy ? 0 : 1;
  },
};
