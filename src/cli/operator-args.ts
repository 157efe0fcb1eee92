import { UsageError } from './command.js';

/** The command line of an operator's money command: `--config FILE`, `--note TEXT`, one mode, switches, one argument. */
export interface OperatorArgs<M extends string> {
  readonly configPath: string | undefined;
  readonly note: string;
  readonly mode: M | undefined;
  /** The switches given (e.g. --all, --dry-run). */
  readonly switches: ReadonlySet<string>;
  /** The options given with a value (e.g. --recipients FILE), by option. */
  readonly values: ReadonlyMap<string, string>;
  /** The one positional argument, lower-cased (a hash), if given. */
  readonly target: string | undefined;
}

/**
 * Parses the command line of `payout resolve` or `block settle`: `modes` maps each mode option
 * (at most one may be given) to its mode, `switches` lists the options without a value, `values`
 * the other options that take one (each at most once). Anything
 * else starting with `--`, or a second positional argument, is a UsageError.
 */
export function parseOperatorArgs<M extends string>(
  args: readonly string[],
  spec: {
    readonly modes: Readonly<Record<string, M>>;
    readonly switches: readonly string[];
    readonly values?: readonly string[];
  },
): OperatorArgs<M> {
  let configPath: string | undefined;
  let mode: M | undefined;
  let note = '';
  let target: string | undefined;
  const switches = new Set<string>();
  const values = new Map<string, string>();
  const modeOptions = Object.keys(spec.modes);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config') {
      configPath = args[++i];
      if (configPath === undefined) throw new UsageError('--config needs a FILE');
    } else if (arg === '--note') {
      const text = args[++i];
      if (text === undefined) throw new UsageError('--note needs a TEXT');
      note = text;
    } else if (spec.values?.includes(arg)) {
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      if (values.has(arg)) throw new UsageError(`${arg} is given twice`);
      values.set(arg, value);
    } else if (spec.switches.includes(arg)) {
      switches.add(arg);
    } else if (Object.hasOwn(spec.modes, arg)) {
      if (mode !== undefined) {
        throw new UsageError(`give one of ${modeOptions.slice(0, -1).join(', ')} and ${modeOptions.at(-1)}`);
      }
      mode = spec.modes[arg];
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option ${arg}`);
    } else if (target === undefined) {
      target = arg.toLowerCase();
    } else {
      throw new UsageError(`unexpected argument ${arg}`);
    }
  }
  return { configPath, note, mode, switches, values, target };
}
