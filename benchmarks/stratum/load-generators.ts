import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadCommand, LoadEvent } from './load-generator-messages.js';

type EventOf<T extends LoadEvent['type']> = Extract<LoadEvent, { type: T }>;

interface Generator {
  readonly child: ChildProcess;
  /** Answers awaited, in the order the commands were sent (a generator answers each in turn). */
  readonly waiting: Array<{ resolve: (event: LoadEvent) => void; reject: (error: Error) => void }>;
  readonly exited: Promise<void>;
}

/** How long a generator gets to close its sockets and exit before SIGKILL. */
const STOP_GRACE_MS = 5_000;

/**
 * The benchmark's load generators (load-generator.ts), one child process each: commands go to
 * all of them or to one, and each answer resolves the command it belongs to. A generator that
 * fails a command or exits rejects what it was asked.
 */
export class LoadGenerators {
  readonly #generators: Generator[];

  private constructor(generators: Generator[]) {
    this.#generators = generators;
  }

  static start(count: number): LoadGenerators {
    const entry = fileURLToPath(new URL('./load-generator.js', import.meta.url));
    return new LoadGenerators(
      Array.from({ length: count }, (_, index) => {
        const child = fork(entry, [String(index)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        const waiting: Generator['waiting'] = [];
        child.on('message', (event: LoadEvent) => {
          const next = waiting.shift();
          if (event.type === 'failed') next?.reject(new Error(`load generator ${index}: ${event.message}`));
          else next?.resolve(event);
        });
        const exited = new Promise<void>((resolve) =>
          child.once('exit', (code, signal) => {
            const error = new Error(`load generator ${index} exited (${signal ?? code})`);
            for (const pending of waiting.splice(0)) pending.reject(error);
            resolve();
          }),
        );
        return { child, waiting, exited };
      }),
    );
  }

  get count(): number {
    return this.#generators.length;
  }

  /** Process ids, for the report. */
  get pids(): number[] {
    return this.#generators.map((g) => g.child.pid ?? 0);
  }

  /** Sends `command` (or `command(index)`) to every generator and resolves with their answers, in order. */
  all<T extends LoadEvent['type']>(
    answer: T,
    command: LoadCommand | ((index: number) => LoadCommand),
  ): Promise<Array<EventOf<T>>> {
    return Promise.all(
      this.#generators.map((_, index) =>
        this.one(index, answer, typeof command === 'function' ? command(index) : command),
      ),
    );
  }

  one<T extends LoadEvent['type']>(index: number, answer: T, command: LoadCommand): Promise<EventOf<T>> {
    const generator = this.#generators[index]!;
    return new Promise((resolve, reject) => {
      generator.waiting.push({
        resolve: (event) =>
          event.type === answer
            ? resolve(event as EventOf<T>)
            : reject(new Error(`load generator ${index}: expected ${answer}, got ${event.type}`)),
        reject,
      });
      generator.child.send(command);
    });
  }

  /** Asks every generator to close its miners and exit; SIGKILL (by pid) to one that has not after the grace. */
  async stop(): Promise<void> {
    await Promise.all(
      this.#generators.map(async ({ child, exited }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (child.connected) child.send({ type: 'stop' } satisfies LoadCommand);
        else child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
