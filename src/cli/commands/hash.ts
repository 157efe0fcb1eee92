import { createInterface } from 'node:readline';
import { CodecError } from '../../fuego/errors.js';
import { bytesToHex, hexToBytes } from '../../fuego/hex.js';
import {
  type HasherLoadLogger,
  isPowImplementationChoice,
  loadHasher,
  POW_IMPLEMENTATION_CHOICES,
  type PowImplementationChoice,
} from '../../pow/load-hasher.js';
import type { PowHasher } from '../../pow/types.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';

/** Bad inputs are echoed in error messages, cut to this many characters. */
const MAX_ECHOED_INPUT_CHARS = 80;

interface HashArgs {
  implementation: PowImplementationChoice;
  hexInputs: string[];
}

function parseArgs(args: readonly string[]): HashArgs {
  let implementation: PowImplementationChoice = 'auto';
  const hexInputs: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (optionsEnded || !arg.startsWith('-')) {
      hexInputs.push(arg);
    } else if (arg === '--') {
      optionsEnded = true;
    } else if (arg === '--impl' || arg.startsWith('--impl=')) {
      const value = arg === '--impl' ? args[++i] : arg.slice('--impl='.length);
      if (value === undefined || !isPowImplementationChoice(value)) {
        throw new UsageError(`--impl must be one of ${POW_IMPLEMENTATION_CHOICES.join(', ')}`);
      }
      implementation = value;
    } else {
      throw new UsageError(`unknown option ${arg}`);
    }
  }
  return { implementation, hexInputs };
}

function echo(input: string): string {
  return input.length > MAX_ECHOED_INPUT_CHARS ? `${input.slice(0, MAX_ECHOED_INPUT_CHARS)}...` : input;
}

/** Prints the hash of one input; returns false (after telling stderr) when it is not hex. */
function hashOne(hasher: PowHasher, hex: string, io: CliIo): boolean {
  let input: Uint8Array;
  try {
    input = hexToBytes(hex);
  } catch (error) {
    if (!(error instanceof CodecError)) throw error;
    writeLine(io.stderr, `fuego-pool hash: bad hex input "${echo(hex)}": ${error.message} [${error.code}]`);
    return false;
  }
  writeLine(io.stdout, bytesToHex(hasher.hash(input)));
  return true;
}

/**
 * `fuego-pool hash`: the cn/upx2 hash of each hex argument, or of each non-empty stdin line when
 * there are no arguments, one lowercase hex hash per line in input order. A bad input gets a
 * message on stderr and no output line; the others are still hashed, and the exit code is 1.
 * The hasher passes its self-test first (a failure exits 1 with POW_SELF_TEST_FAILED).
 */
export const hashCommand: CliCommand = {
  path: ['hash'],
  usage: 'fuego-pool hash [--impl auto|native|native-portable|typescript] [HEX ...]',
  summary: 'print the cn/upx2 hash of each hex argument (or of each stdin line)',
  async run(args, io) {
    const { implementation, hexInputs } = parseArgs(args);
    const logger: HasherLoadLogger = {
      warn: (_obj, msg) => writeLine(io.stderr, `fuego-pool hash: warning: ${msg}`),
    };
    const hasher = loadHasher(implementation, logger);
    let allGood = true;
    if (hexInputs.length > 0) {
      for (const hex of hexInputs) allGood = hashOne(hasher, hex.trim(), io) && allGood;
    } else {
      const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        const hex = line.trim();
        if (hex !== '') allGood = hashOne(hasher, hex, io) && allGood;
      }
    }
    return allGood ? 0 : 1;
  },
};
