import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/command.js';
import { payoutResolveCommand } from '../../../src/cli/commands/payout-resolve.js';

const TX = 'ab'.repeat(32);

function run(args: string[]): Promise<number> {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: Readable.from([]), env: {} };
  return payoutResolveCommand.run(args, io);
}

/** `--recipients FILE` is checked before anything connects: it names whom one unknown payment paid. */
describe('fuego-pool payout resolve --recipients', () => {
  it.each([
    ['with --dismiss', [TX, '--dismiss', '--recipients', 'list.txt', '--config', 'c.json'], /--paid/],
    ['with --all', ['--all', '--paid', '--recipients', 'list.txt', '--config', 'c.json'], /one TXHASH/],
    ['with --refund', [TX, '--refund', '--recipients', 'list.txt', '--config', 'c.json'], /--paid/],
    ['without a FILE', [TX, '--paid', '--config', 'c.json', '--recipients'], /needs a value/],
    ['twice', [TX, '--paid', '--recipients', 'a', '--recipients', 'b', '--config', 'c.json'], /twice/],
    [
      '--new-account without it',
      [TX, '--paid', '--new-account', '--config', 'c.json'],
      /--new-account goes with --recipients/,
    ],
    [
      'of a file that cannot be read',
      [TX, '--paid', '--recipients', '/nonexistent/list.txt', '--config', 'c.json'],
      /ENOENT/,
    ],
  ])('is a usage error %s', async (_what, args, message) => {
    const refused = run(args);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(message);
  });

  it('shows in the usage line', () => {
    expect(payoutResolveCommand.usage).toContain('--paid [--recipients FILE [--new-account]]');
  });
});
