import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

/** Runs the built binary with its stdout read by nobody (`fuego-pool ... | head -1` after head quit). */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * An operator's `fuego-pool status | head -3` (or `bans | head`): once the reader has gone, the
 * next write failed with EPIPE, an unhandled 'error' event: Node printed its stack on stderr and
 * exited 1, mid-command (a standalone `payout` draws its progress while the pass runs).
 */
describe('fuego-pool with a closed stdout', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  });

  it('finishes the command with its own exit code and no stack', async () => {
    const run = await runWithClosedStdout(['help']);
    expect(run.stderr).not.toContain('EPIPE');
    expect(run.code).toBe(0);
  });
});
