import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliForTest } from '../helpers/cli.js';

/**
 * Every command that takes `--config FILE` answers a file it cannot use the same way: exit 1 (the
 * command line was right, the file is not), the CONFIG_* code, the file and the reason it could
 * not be used (missing, a directory, not JSON), and no usage line.
 */
describe('a config file the CLI cannot use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuego-cli-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.json');
  const directory = join(dir, 'a-directory');
  mkdirSync(directory);
  const trailingComma = join(dir, 'trailing-comma.json');
  writeFileSync(trailingComma, '{ "network": "mainnet", }\n');
  const badControl = join(dir, 'bad-control.json');
  writeFileSync(badControl, JSON.stringify({ control: { socketPath: 'relative/control.sock' } }));

  const commands: readonly (readonly string[])[] = [
    ['start'],
    ['report'],
    ['payout', '--dry-run'],
    ['payout', '--now'],
    ['wallet', 'optimize'],
    ['status'],
    ['bans'],
    ['miners'],
    ['unban', '192.0.2.1'],
  ];

  const cases = [
    { file: missing, reason: /no such file or directory/, code: 'CONFIG_UNREADABLE' },
    { file: directory, reason: /EISDIR|illegal operation on a directory/, code: 'CONFIG_UNREADABLE' },
    { file: trailingComma, reason: /not valid JSON/, code: 'CONFIG_UNREADABLE' },
  ];

  for (const command of commands) {
    it(`${command.join(' ')} exits 1 naming the file and why`, async () => {
      for (const { file, reason, code } of cases) {
        const run = await runCliForTest([...command, '--config', file]);
        expect(run.code, `${command.join(' ')} --config ${file}`).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(file);
        expect(run.stderr).toMatch(reason);
        expect(run.stderr).toContain(`[${code}]`);
        expect(run.stderr).not.toContain('usage:');
      }
    });
  }

  it('a bad control section: the commands that only read it name the key, exit 1', async () => {
    for (const command of [['status'], ['bans'], ['payout', '--now'], ['wallet', 'optimize']]) {
      const run = await runCliForTest([...command, '--config', badControl]);
      expect(run.code, command.join(' ')).toBe(1);
      expect(run.stderr).toContain('control.socketPath');
      expect(run.stderr).toContain('[CONFIG_INVALID]');
      expect(run.stderr).not.toContain('usage:');
    }
  });
});
