import { canonicalIp } from '../../config/canonical-ip.js';
import {
  type BanView,
  MAX_BAN_REASON_LENGTH,
  MAX_BAN_SECONDS,
} from '../../servers/control/control-protocol.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { CONTROL_FLAGS, integerFlag, type ParsedFlags, parseFlags, socketFlags } from '../control-args.js';
import { resolveSocketPath, withControlClient } from '../control-client.js';
import { formatDuration, formatTable } from '../text-format.js';

const DEFAULT_BAN_SECONDS = 3600;

/** The one IP argument, checked here so a typo never reaches the pool. */
function ipArgument(flags: ParsedFlags): string {
  if (flags.positionals.length !== 1) throw new UsageError('give exactly one IP address');
  const text = flags.positionals[0]!;
  const ip = canonicalIp(text);
  if (ip === null)
    throw new UsageError(`${text} is not an IPv4 or IPv6 address (or an IPv6 network as bans lists it)`);
  return ip;
}

export function formatBans(bans: readonly BanView[]): string[] {
  if (bans.length === 0) return ['no active bans'];
  return formatTable([
    ['ip', 'remaining', 'kind', 'offences', 'reason'],
    ...bans.map((ban) => [
      ban.ip,
      formatDuration(ban.remainingSeconds),
      ban.manual ? 'manual' : 'auto',
      String(ban.offences),
      ban.reason,
    ]),
  ]);
}

/** `fuego-pool ban IP [--seconds N] [--reason TEXT]`: bans an IP and closes its connections. */
export const banCommand: CliCommand = {
  path: ['ban'],
  usage: `fuego-pool ban IP [--seconds N (default ${DEFAULT_BAN_SECONDS})] [--reason TEXT] [--socket PATH | --config FILE] [--json]`,
  summary: 'ban an IP from the stratum ports of the running pool (closes its connections)',
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, { ...CONTROL_FLAGS, '--seconds': 'value', '--reason': 'value' });
    const ip = ipArgument(flags);
    const seconds = integerFlag(flags, '--seconds', DEFAULT_BAN_SECONDS, 1, MAX_BAN_SECONDS);
    const reason = flags.values.get('--reason');
    if (reason !== undefined && (reason.length === 0 || reason.length > MAX_BAN_REASON_LENGTH)) {
      throw new UsageError(`--reason must be 1 to ${MAX_BAN_REASON_LENGTH} characters`);
    }
    const socketPath = resolveSocketPath(socketFlags(flags));
    const { ban } = await withControlClient({ socketPath }, (client) =>
      client.request({ type: 'ban', ip, seconds, ...(reason === undefined ? {} : { reason }) }),
    );
    if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(ban, null, 2));
    else
      writeLine(
        io.stdout,
        `banned ${ban.ip} for ${formatDuration(ban.remainingSeconds)} (until ${new Date(ban.untilMs).toISOString()}): ${ban.reason}`,
      );
    return 0;
  },
};

/** `fuego-pool unban IP`: lifts a ban (exit 0 whether or not the IP was banned). */
export const unbanCommand: CliCommand = {
  path: ['unban'],
  usage: 'fuego-pool unban IP [--socket PATH | --config FILE] [--json]',
  summary: 'lift the ban of an IP on the running pool',
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, CONTROL_FLAGS);
    const ip = ipArgument(flags);
    const socketPath = resolveSocketPath(socketFlags(flags));
    const result = await withControlClient({ socketPath }, (client) => client.request({ type: 'unban', ip }));
    if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(result, null, 2));
    else writeLine(io.stdout, result.wasBanned ? `unbanned ${result.ip}` : `${result.ip} was not banned`);
    return 0;
  },
};

/** `fuego-pool bans`: the active bans, longest remaining first. */
export const bansCommand: CliCommand = {
  path: ['bans'],
  usage: 'fuego-pool bans [--socket PATH | --config FILE] [--json]',
  summary: 'list the active bans of the running pool',
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, CONTROL_FLAGS);
    if (flags.positionals.length > 0) throw new UsageError(`unexpected argument ${flags.positionals[0]}`);
    const socketPath = resolveSocketPath(socketFlags(flags));
    const { bans } = await withControlClient({ socketPath }, (client) => client.request({ type: 'bans' }));
    if (flags.switches.has('--json')) writeLine(io.stdout, JSON.stringify(bans, null, 2));
    else for (const line of formatBans(bans)) writeLine(io.stdout, line);
    return 0;
  },
};
