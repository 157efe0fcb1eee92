import { DEFAULT_DEMO_OPTIONS, type DemoStackOptions, startDemoStack } from '../../app/demo-stack.js';
import { createLogger } from '../../log/logger.js';
import { type CliCommand, type CliIo, UsageError, writeLine } from '../command.js';
import { waitForShutdownSignal } from '../shutdown-signal.js';

const USAGE =
  'fuego-pool demo [--stratum-port N] [--tls-port N|--no-tls] [--difficulty N] [--share-difficulty N] [--stratum-processes N|auto] [--log-level LEVEL]';

/** The demo's options from its command line (exported for tests). */
export function parseDemoArgs(args: readonly string[]): { options: DemoStackOptions; logLevel: string } {
  const options: { -readonly [K in keyof DemoStackOptions]: DemoStackOptions[K] } = {
    ...DEFAULT_DEMO_OPTIONS,
  };
  let logLevel = 'warn';
  const number = (flag: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n < 0)
      throw new UsageError(`${flag} needs a whole number`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    switch (flag) {
      case '--stratum-port':
        options.stratumPort = number(flag, args[++i]);
        break;
      case '--tls-port':
        options.tlsPort = number(flag, args[++i]);
        break;
      case '--no-tls':
        options.tlsPort = null;
        break;
      case '--difficulty':
        options.networkDifficulty = number(flag, args[++i]);
        break;
      case '--share-difficulty':
        options.shareDifficulty = number(flag, args[++i]);
        break;
      case '--stratum-processes': {
        const text = args[++i];
        const processes = text === 'auto' ? 'auto' : number(flag, text);
        if (processes !== 'auto' && (processes < 1 || processes > 64))
          throw new UsageError(`${flag} needs a number from 1 to 64, or auto`);
        options.poolOverrides = { ...options.poolOverrides, stratum: { processes } };
        break;
      }
      case '--log-level':
        logLevel = args[++i] ?? '';
        break;
      default:
        throw new UsageError(`unknown argument "${flag}"`);
    }
  }
  return { options, logLevel };
}

/**
 * `fuego-pool demo` (what `npm run devnet` runs): a private Redis, the devnet and the pool on
 * 127.0.0.1, with the XMRig command line to point at it; runs until Ctrl-C and stops it all.
 */
export const demoCommand: CliCommand = {
  path: ['demo'],
  usage: USAGE,
  summary: 'run the pool on the built-in devnet (private Redis + simulated fuegod/walletd)',
  async run(args: string[], io: CliIo): Promise<number> {
    const { options, logLevel } = parseDemoArgs(args);
    const logger = createLogger({ level: logLevel as 'warn' });
    writeLine(io.stdout, 'starting Redis, the devnet and the pool ...');
    const stack = await startDemoStack(options, logger);
    const out = (text: string) => writeLine(io.stdout, text);
    out('');
    out('fuego-pool is running on the built-in devnet (everything on 127.0.0.1):');
    out(`  simulated fuegod   ${stack.devnet.daemonUrl}   (network difficulty ${options.networkDifficulty})`);
    out(`  simulated walletd  ${stack.devnet.walletUrl}`);
    out(`  private Redis      ${stack.redis.url}`);
    const processes = stack.pool.stratumProcesses?.children().length ?? 1;
    out(
      `  stratum            127.0.0.1:${stack.stratumPort}   (start difficulty ${options.shareDifficulty}${processes > 1 ? `, ${processes} processes` : ''})`,
    );
    if (stack.tlsPort !== null) {
      out(`  stratum over TLS   127.0.0.1:${stack.tlsPort}   (self-signed, SHA-256 ${stack.tlsFingerprint})`);
    }
    if (stack.apiUrl !== null) out(`  dashboard and API  ${stack.apiUrl}/`);
    out(`  operator commands  npx fuego-pool status --socket ${stack.controlSocketPath}`);
    out('');
    out('Point XMRig at it (a demo address of the devnet wallet; any Fuego address works):');
    out(
      `  xmrig -o 127.0.0.1:${stack.stratumPort} -u ${stack.minerAddress} -p x -a cn/upx2 -t 1 --donate-level=1`,
    );
    if (stack.tlsPort !== null) {
      out(
        `  xmrig -o 127.0.0.1:${stack.tlsPort} --tls --tls-fingerprint=${stack.tlsFingerprint} -u ${stack.minerAddress} -p x -a cn/upx2 -t 1 --donate-level=1`,
      );
    }
    out('');
    out('Press Ctrl-C to stop everything.');
    const signal = await waitForShutdownSignal();
    out(`\n${signal}: stopping ...`);
    await stack.stop();
    out('stopped.');
    return 0;
  },
};
