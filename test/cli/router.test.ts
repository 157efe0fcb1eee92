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

  // `start --config=FILE` worked; the same spelling was "unknown option --config=FILE" elsewhere.
  it('takes --name=value wherever it takes --name value', async () => {
    const missing = '/nonexistent/fuego-pool.json';
    for (const command of [['start'], ['report'], ['payout'], ['status'], ['bans'], ['wallet', 'optimize']]) {
      const run = await runCliForTest([...command, `--config=${missing}`]);
      expect(run.stderr, command.join(' ')).toContain('[CONFIG_UNREADABLE]');
      expect(run.code).toBe(1);
    }
    const limit = await runCliForTest(['miners', '--limit=0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit must be between 1 and 100');
    const seconds = await runCliForTest(['ban', '192.0.2.1', '--seconds=abc']);
    expect(seconds.code).toBe(2);
    expect(seconds.stderr).toContain('--seconds must be a whole number');
    const reason = await runCliForTest(['ban', '192.0.2.1', '--reason=a=b', '--socket=/nonexistent/c.sock']);
    expect(reason.stderr).toContain('[SOCKET_MISSING]');
  });
});
