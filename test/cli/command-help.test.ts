import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { runCliForTest } from '../helpers/cli.js';

describe('every command answers --help and -h', () => {
  for (const entry of commands) {
    const name = entry.path.join(' ');
    for (const flag of ['--help', '-h']) {
      it(`fuego-pool ${name} ${flag} prints its usage and exits 0`, async () => {
        const run = await runCliForTest([...entry.path, flag]);
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^usage: fuego-pool ${name}( |$)`));
      });
    }
  }
});
