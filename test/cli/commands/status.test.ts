import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus } from '../../../src/cli/commands/status.js';
import type { StatusView } from '../../../src/servers/control/control-protocol.js';
import { runCliForTest } from '../../helpers/cli.js';
import { type ControlFixture, startControlFixture } from '../control-cli-fixture.js';

describe('fuego-pool status', () => {
  let fixture: ControlFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
  });

  it('prints a summary table of the running pool', async () => {
    fixture = await startControlFixture();
    const run = await runCliForTest(['status', '--socket', fixture.socketPath]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'fuego-pool 0.1.0, up 0s',
      'templates  healthy, height 812345, template 4.2 s old',
      'stratum    12 connections, 11 logged in (port 3333: 10, port 5555: 2)',
      'shares     1200 accepted (7 stale), 5 rejected',
      'blocks     2 found, 2 accepted, 0 rejected, 0 submit errors',
      'bans       0 active, 4 issued since start (this process)',
      'hashrate   1.23 MH/s over 10m 00s, 8 miners, 11 workers (pool-wide)',
      'payouts    this process leads (payout --now runs here)',
      '',
    ]);
  });

  it('prints JSON with --json', async () => {
    fixture = await startControlFixture();
    const run = await runCliForTest(['status', '--json', '--socket', fixture.socketPath]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      templates: { height: 812_345 },
      stratum: { bans: { active: 0 } },
    });
  });

  it('exits 1 and says so when the daemon is unhealthy or statistics are unreadable', async () => {
    fixture = await startControlFixture({
      templates: () => ({
        status: () => ({
          healthy: false,
          consecutiveFailures: 3,
          lastError: 'connect ECONNREFUSED 127.0.0.1:18180',
          templateAgeMs: 95_000,
          height: 812_345,
        }),
      }),
      stats: {
        poolHashrate: () => Promise.reject(new Error('redis down')),
        topMiners: () => Promise.reject(new Error('redis down')),
      },
    });
    const run = await runCliForTest(['status', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('UNHEALTHY (3 failures: connect ECONNREFUSED 127.0.0.1:18180)');
    expect(run.stdout).toContain('hashrate   unavailable (statistics store not readable)');
  });

  it('says the process waits for its first template (daemon, how long, why) and exits 1', async () => {
    fixture = await startControlFixture({
      waiting: () => ({
        daemon: 'http://127.0.0.1:18180',
        waitedSeconds: 42,
        reason: 'connect ECONNREFUSED 127.0.0.1:18180',
      }),
    });
    const run = await runCliForTest(['status', '--socket', fixture.socketPath]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').slice(1, 3)).toEqual([
      'templates  waiting for the first template from the daemon at http://127.0.0.1:18180 for 42 s: connect ECONNREFUSED 127.0.0.1:18180',
      'stratum    not listening yet: the ports open with the first template',
    ]);
    const json = await runCliForTest(['status', '--json', '--socket', fixture.socketPath]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).waiting).toEqual({
      daemon: 'http://127.0.0.1:18180',
      waitedSeconds: 42,
      reason: 'connect ECONNREFUSED 127.0.0.1:18180',
    });
  });

  it('tells the operator when there is no socket, with the error code', async () => {
    const run = await runCliForTest(['status', '--socket', '/tmp/fuego-pool-test-missing.sock']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[SOCKET_MISSING]');
    expect(run.stderr).toContain('is the pool running');
  });

  it('rejects unknown options with usage', async () => {
    const run = await runCliForTest(['status', '--frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: fuego-pool status');
  });

  it('lists the stratum child processes when the role runs in them', () => {
    const view: StatusView = {
      version: '0.1.0',
      uptimeSeconds: 5,
      waiting: null,
      templates: null,
      stratum: {
        connections: 7,
        sessions: 7,
        ports: { '3333': 7 },
        shares: { accepted: 10, stale: 0, rejected: 0 },
        blocks: { found: 0, accepted: 0, rejected: 0, submitErrors: 0 },
        bans: { active: 1, issued: 1 },
        processes: [
          { index: 0, nodeId: 4, pid: 4242, state: 'serving', restarts: 0, sessions: 7 },
          { index: 1, nodeId: 5, pid: null, state: 'waiting-to-restart', restarts: 2, sessions: 0 },
        ],
      },
      pool: null,
      payouts: { role: 'leading', running: false },
    };
    const lines = formatStatus(view);
    expect(lines).toContain('bans       1 active, 1 issued since start (all its stratum processes)');
    expect(lines).toContain(
      'processes  #0 node 4 pid 4242 serving 7 miners; #1 node 5 waiting-to-restart (restarted 2 times)',
    );
  });

  it("shows the leader's unlock runs: what the last one decided, held (why, for how long), or failing", () => {
    const base = {
      version: '0.1.0',
      uptimeSeconds: 600,
      waiting: null,
      templates: null,
      stratum: null,
      pool: null,
      payouts: { role: 'leading', running: false },
    } satisfies StatusView;
    const now = 1_800_000_000_000;
    const unlocker = { lastRunMs: now - 12_000, held: null, heldSinceMs: null, decided: 2, lastError: null };
    expect(formatStatus({ ...base, unlocker }, now)).toContain(
      'unlocker   last run 12s ago, 2 blocks decided',
    );
    const held = { ...unlocker, decided: 0, held: 'witness-disagrees', heldSinceMs: now - 1_500_000 };
    expect(formatStatus({ ...base, unlocker: held }, now)).toContain(
      'unlocker   HELD for 25m 00s: witness-disagrees, pending blocks are not decided (last run 12s ago; the log says why)',
    );
    const failing = { ...unlocker, lastError: 'connect ECONNREFUSED 127.0.0.1:18180' };
    expect(formatStatus({ ...base, unlocker: failing }, now)).toContain(
      'unlocker   FAILING: connect ECONNREFUSED 127.0.0.1:18180 (last run 12s ago)',
    );
    expect(formatStatus({ ...base, unlocker: { ...unlocker, lastRunMs: null } }, now)).toContain(
      'unlocker   no run yet in this leader term',
    );
    expect(formatStatus({ ...base, unlocker: null }, now).some((line) => line.startsWith('unlocker'))).toBe(
      false,
    );
  });

  it('a pool process from before the waiting field (an upgrade under way) is formatted as before', () => {
    const { waiting: _waiting, ...older } = {
      version: '0.1.0',
      uptimeSeconds: 3,
      waiting: null,
      templates: null,
      stratum: null,
      pool: null,
      payouts: { role: 'none', running: false },
    } satisfies StatusView;
    expect(formatStatus(older as StatusView)).toContain('templates  none in this process');
  });

  it('formats a process without the stratum role, standing by as leader', () => {
    const view: StatusView = {
      version: '0.1.0',
      uptimeSeconds: 3723,
      waiting: null,
      templates: {
        healthy: true,
        height: null,
        templateAgeMs: null,
        consecutiveFailures: null,
        lastError: null,
      },
      stratum: null,
      pool: null,
      payouts: { role: 'standby', running: false },
    };
    expect(formatStatus(view)).toEqual([
      'fuego-pool 0.1.0, up 1h 02m 03s',
      'templates  healthy, height ?, template none yet',
      'stratum    not run by this process',
      'hashrate   unavailable (statistics store not readable)',
      'payouts    standing by (another process holds the leader lease)',
    ]);
    expect(formatStatus({ ...view, templates: null, payouts: { role: 'none', running: false } })).toContain(
      'templates  none in this process',
    );
    expect(
      formatStatus({
        ...view,
        templates: {
          healthy: false,
          height: 7,
          templateAgeMs: 61_000,
          consecutiveFailures: null,
          lastError: null,
        },
      }),
    ).toContain('templates  UNHEALTHY, height 7, template 61.0 s old');
  });
});
