import { afterEach, describe, expect, it } from 'vitest';
import { runCliForTest } from '../../helpers/cli.js';
import { type ControlFixture, startControlFixture } from '../control-cli-fixture.js';

describe('fuego-pool ban / unban / bans', () => {
  let fixture: ControlFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
  });

  it('bans, lists and unbans an IP (round trip through the pool)', async () => {
    fixture = await startControlFixture();
    const socket = ['--socket', fixture.socketPath];

    const ban = await runCliForTest([
      'ban',
      '203.0.113.9',
      '--seconds',
      '600',
      '--reason',
      'share flood',
      ...socket,
    ]);
    expect(ban.stderr).toBe('');
    expect(ban.code).toBe(0);
    expect(ban.stdout).toBe(
      `banned 203.0.113.9 for 10m 00s (until ${new Date(1_700_000_600_000).toISOString()}): share flood\n`,
    );
    expect(fixture.modules.bans.entries.get('203.0.113.9')).toMatchObject({ reason: 'share flood' });

    const v6 = await runCliForTest(['ban', '2001:DB8::0:1', ...socket]);
    expect(v6.stdout).toContain('banned 2001:db8::1 for 1h 00m 00s');

    const list = await runCliForTest(['bans', ...socket]);
    expect(list.stdout.split('\n')).toEqual([
      'ip           remaining   kind    offences  reason',
      '203.0.113.9  10m 00s     manual  0         share flood',
      '2001:db8::1  1h 00m 00s  manual  0         manual (control socket)',
      '',
    ]);

    const unban = await runCliForTest(['unban', '203.0.113.9', ...socket]);
    expect(unban.stdout).toBe('unbanned 203.0.113.9\n');
    const again = await runCliForTest(['unban', '203.0.113.9', ...socket]);
    expect(again).toMatchObject({ code: 0, stdout: '203.0.113.9 was not banned\n' });
    expect([...fixture.modules.bans.entries.keys()]).toEqual(['2001:db8::1']);

    const json = await runCliForTest(['bans', '--json', ...socket]);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ ip: '2001:db8::1', manual: true })]);
  });

  it('validates the IP and options before contacting the pool', async () => {
    for (const args of [
      ['ban', '999.1.1.1'],
      ['ban', 'example.org'],
      ['ban'],
      ['ban', '1.2.3.4', '5.6.7.8'],
      ['ban', '1.2.3.4', '--seconds', '0'],
      ['ban', '1.2.3.4', '--seconds', 'ten'],
      ['ban', '1.2.3.4', '--reason', 'x'.repeat(201)],
      ['unban', 'fe80::1%eth0'],
    ]) {
      const run = await runCliForTest([...args, '--socket', '/tmp/fuego-pool-test-missing.sock']);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage:');
    }
  });

  it('prints "no active bans" for an empty list', async () => {
    fixture = await startControlFixture();
    const run = await runCliForTest(['bans', '--socket', fixture.socketPath]);
    expect(run.stdout).toBe('no active bans\n');
  });
});
