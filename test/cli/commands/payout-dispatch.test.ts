import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliForTest } from '../../helpers/cli.js';
import { type ControlFixture, startControlFixture } from '../control-cli-fixture.js';

describe('fuego-pool payout --now over the control socket', () => {
  let fixture: ControlFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
  });

  it('--socket asks the leader, shows progress on stderr and the batch table on stdout', async () => {
    fixture = await startControlFixture({}, { heartbeatMs: 10 });
    const run = await runCliForTest(['payout', '--now', '--socket', fixture.socketPath]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`asking the running pool (${fixture.socketPath}) for a payout pass`);
    expect(run.stderr).toContain('payout: 0, payout pass started');
    expect(run.stderr).toContain('payout: 1, batch b-1: 3 miners, 12.3456789 XFG');
    expect(run.stderr).toContain('payout: 2, batch b-2');
    expect(run.stderr).toMatch(/payout: 2, 2 batches sent, \d+s\n$/);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^batch\s+state\s+miners\s+amount \(XFG\)\s+tx/);
    expect(lines[1]).toMatch(/^b-1\s+sent\s+3\s+12\.3456789\s+abab/);
    expect(lines[2]).toMatch(/^b-2\s+sent\s+1\s+1\.0000000\s+cdcd/);
  });

  it('--config --now finds the socket from control.socketPath', async () => {
    fixture = await startControlFixture();
    const dir = mkdtempSync(join(tmpdir(), 'fpcfg-'));
    try {
      const config = join(dir, 'pool.json');
      writeFileSync(config, JSON.stringify({ control: { socketPath: fixture.socketPath } }));
      const leader = fixture.modules.leaderFake;
      const run = await runCliForTest(['payout', '--config', config, '--now']);
      expect(run.code).toBe(0);
      expect(leader.calls).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports the pool's refusal with its code", async () => {
    fixture = await startControlFixture({ leader: null });
    const run = await runCliForTest(['payout', '--now', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[PAYOUTS_UNAVAILABLE]');
  });

  it('refuses --socket without --now, or with --dry-run', async () => {
    expect((await runCliForTest(['payout', '--socket', '/tmp/x.sock'])).code).toBe(2);
    expect((await runCliForTest(['payout', '--now', '--dry-run', '--socket', '/tmp/x.sock'])).code).toBe(2);
  });
});
