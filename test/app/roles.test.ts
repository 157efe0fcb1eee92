import { describe, expect, it } from 'vitest';
import { resolveRoles } from '../../src/app/roles.js';
import { parseConfig } from '../../src/config/load-config.js';
import { runCliForTest } from '../helpers/cli.js';

describe('roles', () => {
  it('all is every role; lists and comma lists combine', () => {
    expect([...resolveRoles(['all'])].sort()).toEqual(['api', 'leader', 'stratum']);
    expect([...resolveRoles(['stratum', 'api'])].sort()).toEqual(['api', 'stratum']);
    expect([...resolveRoles(['leader,api'])].sort()).toEqual(['api', 'leader']);
  });

  it('an unknown role is a config error', () => {
    expect(() => resolveRoles(['miner'])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('config defaults: every role, a 5 s lease renewed every second; renewal must fit twice in the lease', () => {
    const config = parseConfig({});
    expect(config.roles).toEqual(['all']);
    expect(config.cluster).toEqual({ leaderLockTtlMs: 5_000, renewIntervalMs: 1_000 });
    expect(() => parseConfig({ cluster: { leaderLockTtlMs: 2_000, renewIntervalMs: 1_500 } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => parseConfig({ roles: ['stratum', 'miner'] })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('fuego-pool start refuses an unknown --role and a bad --node-id before reading anything', async () => {
    const badRole = await runCliForTest(['start', '--config', '/nonexistent.json', '--role', 'miner']);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('miner');
    const badNode = await runCliForTest(['start', '--config', '/nonexistent.json', '--node-id', '70000']);
    expect(badNode.code).toBe(2);
  });
});
