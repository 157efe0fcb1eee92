import { UsageError } from './command.js';

/** Flags every control-socket command takes. */
export const CONTROL_FLAGS = { '--socket': 'value', '--config': 'value', '--json': 'switch' } as const;

export type FlagSpec = Readonly<Record<string, 'value' | 'switch'>>;

export interface ParsedFlags {
  readonly positionals: readonly string[];
  readonly values: ReadonlyMap<string, string>;
  readonly switches: ReadonlySet<string>;
}

/** `--name VALUE`, `--switch` and positionals; anything else starting with "--" is a usage error. */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const positionals: string[] = [];
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const kind = spec[arg];
    if (kind === undefined) throw new UsageError(`unknown option ${arg}`);
    if (kind === 'switch') {
      switches.add(arg);
      continue;
    }
    const value = args[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    values.set(arg, value);
  }
  return { positionals, values, switches };
}

/** A whole number in [min, max] given as a flag value. */
export function integerFlag(
  flags: ParsedFlags,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = flags.values.get(name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new UsageError(`${name} must be a whole number`);
  const value = Number(text);
  if (value < min || value > max) throw new UsageError(`${name} must be between ${min} and ${max}`);
  return value;
}

/** The socket flags as resolveSocketPath takes them. */
export function socketFlags(flags: ParsedFlags): { socket?: string; config?: string } {
  const socket = flags.values.get('--socket');
  const config = flags.values.get('--config');
  return { ...(socket === undefined ? {} : { socket }), ...(config === undefined ? {} : { config }) };
}
