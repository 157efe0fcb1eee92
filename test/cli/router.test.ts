import { describe, expect, it } from 'vitest';
import { runCliForTest } from '../helpers/cli.js';

describe('fuego-pool command router', () => {
  it('lists the commands on --help and exits 0', async () => {
    const run = await runCliForTest(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('block inspect');
    expect(run.stdout).toContain('address check');
    expect(run.stdout).toContain('hash');
  });

  it('exits 2 with usage on no arguments', async () => {
    const run = await runCliForTest([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: fuego-pool');
  });

  it('exits 2 on an unknown command and says which', async () => {
    const run = await runCliForTest(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "frobnicate"');
  });
});
