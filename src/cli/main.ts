import { FuegoPoolError } from '../errors.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from './command.js';
import { type CommandEntry, commands } from './commands/index.js';

function findCommand(argv: readonly string[]): { entry: CommandEntry; rest: string[] } | undefined {
  let best: CommandEntry | undefined;
  for (const entry of commands) {
    const matches = entry.path.every((word, i) => argv[i] === word);
    if (matches && (!best || entry.path.length > best.path.length)) best = entry;
  }
  return best ? { entry: best, rest: argv.slice(best.path.length) } : undefined;
}

function printHelp(stream: NodeJS.WritableStream): void {
  writeLine(stream, 'usage: fuego-pool <command> [options]\n\ncommands:');
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  for (const c of commands) writeLine(stream, `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
}

/**
 * `--name=value` as `--name value`, for every command alike (the commands parse the spaced form).
 * Only the first "=" splits: `--reason=a=b` is the reason "a=b".
 */
function withInlineValuesSplit(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    const match = /^(--[a-z][a-z0-9-]*)=(.*)$/s.exec(arg);
    return match === null ? [arg] : [match[1]!, match[2]!];
  });
}

/** `--help` or `-h` anywhere after a command's words asks for its help instead of running it. */
function asksForHelp(rest: readonly string[]): boolean {
  return rest.some((arg) => arg === '--help' || arg === '-h');
}

function printCommandHelp(stream: NodeJS.WritableStream, command: CliCommand): void {
  writeLine(stream, `usage: ${command.usage}`);
  writeLine(stream, '');
  writeLine(stream, command.summary);
  if (command.help !== undefined) {
    writeLine(stream, '');
    for (const line of command.help) writeLine(stream, line);
  }
}

/** Runs one CLI invocation and returns its exit code; never calls process.exit itself. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    printHelp(argv.length === 0 ? io.stderr : io.stdout);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    writeLine(io.stderr, `fuego-pool: unknown command "${argv.join(' ')}"`);
    printHelp(io.stderr);
    return 2;
  }
  const command = await found.entry.load();
  if (asksForHelp(found.rest)) {
    printCommandHelp(io.stdout, command);
    return 0;
  }
  try {
    return await command.run(withInlineValuesSplit(found.rest), io);
  } catch (error) {
    if (error instanceof UsageError) {
      writeLine(io.stderr, `fuego-pool ${command.path.join(' ')}: ${error.message}`);
      writeLine(io.stderr, `usage: ${command.usage}`);
      return 2;
    }
    if (error instanceof FuegoPoolError) {
      writeLine(io.stderr, `fuego-pool ${command.path.join(' ')}: ${error.message} [${error.code}]`);
      return 1;
    }
    throw error;
  }
}
