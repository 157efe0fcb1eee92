/** What a CLI command gets from the outside world; tests pass their own streams. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: NodeJS.ProcessEnv;
}

export interface CliCommand {
  /** Words that select the command, e.g. `['block', 'inspect']`. */
  readonly path: readonly string[];
  readonly usage: string;
  readonly summary: string;
  /** Lines printed after the usage and summary by `--help` (what the command does, in more words). */
  readonly help?: readonly string[];
  /** Returns the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Thrown for wrong command-line usage; the router prints the message and the usage, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}
