import { readFile } from 'node:fs/promises';
import { Devnet } from '../../devnet/devnet.js';
import { DevnetConfigError, parseDevnetConfig } from '../../devnet/devnet-config.js';
import {
  isPowImplementationChoice,
  loadHasher,
  type PowImplementationChoice,
} from '../../pow/load-hasher.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';

export interface DevnetArgs {
  configFile: string | undefined;
  overrides: {
    daemon: Record<string, unknown>;
    wallet: Record<string, unknown>;
    dataDir?: string;
  };
  impl: PowImplementationChoice;
}

const USAGE =
  'fuego-pool devnet [--config FILE] [--daemon-port N] [--wallet-port N] [--difficulty N] [--block-time SECONDS] ' +
  '[--coinbase-maturity BLOCKS] [--require-decoys] [--wallet-sync-lag BLOCKS] [--wallet-scan-rate N] ' +
  '[--no-extensions] [--data-dir DIR] ' +
  '[--impl auto|native|native-portable|typescript]\n' +
  '  --coinbase-maturity BLOCKS  blocks before a coinbase output can be spent (Fuego: 60, the default)\n' +
  '  --require-decoys            refuse sends the chain has no decoys for ("MixIn count is too big"), as walletd does\n' +
  '  --wallet-sync-lag BLOCKS    the wallet scans the chain this many blocks behind the daemon, as a trailing walletd\n' +
  '  --wallet-scan-rate N        the wallet scans at most N blocks a second (a burst of blocks leaves it behind)';

/** The devnet command's options from its command line (exported for tests). */
export function parseDevnetArgs(args: readonly string[]): DevnetArgs {
  const parsed: DevnetArgs = { configFile: undefined, overrides: { daemon: {}, wallet: {} }, impl: 'auto' };
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || value.trim() === '' || !Number.isFinite(n))
      throw new UsageError(`${flag} needs a number`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const raw = args[i]!;
    const eq = raw.indexOf('=');
    const flag = raw.startsWith('--') && eq > 0 ? raw.slice(0, eq) : raw;
    const takeValue = (): string | undefined =>
      eq > 0 && raw.startsWith('--') ? raw.slice(eq + 1) : args[++i];
    switch (flag) {
      case '--config':
        parsed.configFile = takeValue();
        if (!parsed.configFile) throw new UsageError('--config needs a file');
        break;
      case '--daemon-port':
        parsed.overrides.daemon['port'] = number(flag, takeValue());
        break;
      case '--wallet-port':
        parsed.overrides.wallet['port'] = number(flag, takeValue());
        break;
      case '--difficulty':
        parsed.overrides.daemon['difficulty'] = number(flag, takeValue());
        break;
      case '--block-time':
        parsed.overrides.daemon['blockTimeSeconds'] = number(flag, takeValue());
        break;
      case '--coinbase-maturity':
        parsed.overrides.daemon['coinbaseMaturityBlocks'] = number(flag, takeValue());
        break;
      case '--require-decoys':
        parsed.overrides.wallet['requireDecoys'] = true;
        break;
      case '--wallet-sync-lag':
        parsed.overrides.wallet['syncLagBlocks'] = number(flag, takeValue());
        break;
      case '--wallet-scan-rate':
        parsed.overrides.wallet['scanBlocksPerSecond'] = number(flag, takeValue());
        break;
      case '--no-extensions':
        parsed.overrides.daemon['extensions'] = false;
        break;
      case '--data-dir': {
        const dir = takeValue();
        if (!dir) throw new UsageError('--data-dir needs a directory');
        parsed.overrides.dataDir = dir;
        break;
      }
      case '--impl': {
        const value = takeValue();
        if (value === undefined || !isPowImplementationChoice(value))
          throw new UsageError('--impl: unknown implementation');
        parsed.impl = value;
        break;
      }
      default:
        throw new UsageError(`unknown option ${raw}`);
    }
  }
  return parsed;
}

async function readConfigFile(path: string | undefined): Promise<Record<string, unknown>> {
  if (path === undefined) return {};
  const text = await readFile(path, 'utf8');
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new DevnetConfigError(
      'INVALID_DEVNET_CONFIG',
      `${path} is not a JSON object: ${(error as Error).message}`,
      {
        key: '(root)',
      },
    );
  }
}

function objectAt(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export const devnetCommand: CliCommand = {
  path: ['devnet'],
  usage: USAGE,
  summary: 'run a simulated fuegod + walletd on 127.0.0.1 for demos and tests',
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = parseDevnetArgs(args);
    const file = await readConfigFile(parsed.configFile);
    const config = parseDevnetConfig({
      ...file,
      daemon: { ...objectAt(file['daemon']), ...parsed.overrides.daemon },
      wallet: { ...objectAt(file['wallet']), ...parsed.overrides.wallet },
      ...(parsed.overrides.dataDir === undefined ? {} : { dataDir: parsed.overrides.dataDir }),
    });
    const hasher = loadHasher(parsed.impl, {
      warn: (_obj, msg) => writeLine(io.stderr, `fuego-pool devnet: ${msg}`),
    });
    const devnet = await Devnet.start(config, { hasher });
    writeLine(
      io.stdout,
      `fuegod (simulated)  listening on ${devnet.daemonUrl}  (json_rpc: ${devnet.daemonUrl}/json_rpc)`,
    );
    writeLine(io.stdout, `walletd (simulated) listening on ${devnet.walletUrl}/json_rpc`);
    writeLine(io.stdout, `wallet address: ${devnet.walletAddress}`);
    writeLine(
      io.stdout,
      `height ${devnet.chain.height}, difficulty ${devnet.chain.difficulty}, coinbase maturity ${config.daemon.coinbaseMaturityBlocks}, ` +
        `decoys ${config.wallet.requireDecoys ? 'required' : 'not required'}, extensions ${config.daemon.extensions ? 'on' : 'off'}, pow ${hasher.implementation}`,
    );
    writeLine(io.stdout, 'press Ctrl+C to stop');
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await devnet.stop();
    writeLine(io.stdout, 'devnet stopped');
    return 0;
  },
};
