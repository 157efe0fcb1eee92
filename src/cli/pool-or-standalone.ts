import { lstat } from 'node:fs/promises';
import { ControlError } from '../servers/control/control-errors.js';
import { type CliIo, writeLine } from './command.js';
import { controlSectionOf } from './control-client.js';

/**
 * Who does a leader's job that the CLI asks for (a payout pass, a wallet optimization): the running
 * pool, over the control socket its config names (`control.enabled` and a socket at
 * `control.socketPath`), so its events fire and no second process races it for the payout lock;
 * else this process (`standalone`). A stale socket (the pool is not running) falls back to
 * `standalone` with a note on stderr.
 */
export async function runOnPoolOrStandalone(
  configPath: string,
  io: CliIo,
  onPool: (socketPath: string) => Promise<number>,
  standalone: () => Promise<number>,
): Promise<number> {
  const control = controlSectionOf(configPath);
  const present = control.enabled && (await lstat(control.socketPath).catch(() => null))?.isSocket() === true;
  if (!present) return standalone();
  try {
    return await onPool(control.socketPath);
  } catch (error) {
    if (error instanceof ControlError && error.code === 'SOCKET_STALE') {
      writeLine(
        io.stderr,
        `control socket ${control.socketPath} is stale (pool not running): running in this process`,
      );
      return standalone();
    }
    throw error;
  }
}
